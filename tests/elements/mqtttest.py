# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the metapublish tests share (test_metapublish.py,
test_metapublish_recovery.py): the skip where PyGObject or the mosquitto
broker and clients are missing (exit 77 at import), the checks, free
ports, a real broker and subscriber, pipelines run to the end, autofill's
measured regions, a CA of the test's own."""
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from fvcheck import Checks  # noqa: E402

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    print(f"skipped: {e}")
    sys.exit(77)

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
if not os.access(MOSQUITTO, os.X_OK) or not shutil.which("mosquitto_sub"):
    print("skipped: the mosquitto broker and clients are not installed "
          "(apt-get install mosquitto mosquitto-clients)")
    sys.exit(77)

check = Checks()
# started as root, mosquitto would drop to its own user, who cannot read the
# test's private folder (its password file, persistence, log): stay us
AS_ME = f"user {pwd.getpwuid(os.getuid()).pw_name}\n"




def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, up=True, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                if up:
                    return True
        except OSError:
            if not up:
                return True
        time.sleep(0.05)
    return False


class Broker:
    """mosquitto on 127.0.0.1:port, with persistence so that a restart keeps
    the subscriber's session and the messages queued for it."""

    def __init__(self, tmp, port):
        self.port, self.dir = port, tmp
        self.conf = os.path.join(tmp, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\n"
                    f"persistence true\npersistence_location {tmp}/\n"
                    f"log_dest file {tmp}/mosquitto.log\n{AS_ME}")
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen([MOSQUITTO, "-c", self.conf], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        if not wait_port(self.port):
            raise RuntimeError("mosquitto did not start")

    def stop(self):
        if self.proc:
            self.proc.send_signal(signal.SIGTERM)   # saves its persistence file
            self.proc.wait(10)
            self.proc = None
            wait_port(self.port, up=False)


class Subscriber:
    """mosquitto_sub at QoS 1 with a persistent session; lines to a file."""

    def __init__(self, tmp, port, topic, name):
        self.path = os.path.join(tmp, f"{name}.txt")
        self.port, self.topic = port, topic
        self.out = open(self.path, "w")
        self.proc = subprocess.Popen(
            ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", topic, "-q", "1",
             "-c", "-i", f"fvtest-{name}", "-k", "5"], stdout=self.out,
            stderr=subprocess.DEVNULL)
        # subscribed once a probe comes back
        end = time.time() + 10
        while time.time() < end:
            subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-t", topic,
                            "-q", "1", "-m", "probe"], check=False)
            time.sleep(0.2)
            if "probe" in open(self.path).read():
                return
        raise RuntimeError("mosquitto_sub did not subscribe")

    def documents(self, settle=1.0):
        time.sleep(settle)
        docs = {}
        for line in open(self.path):
            line = line.strip()
            if line and line != "probe":
                d = json.loads(line)
                docs[d["frame"]] = d   # QoS 1 may repeat one: by frame
        return docs

    def close(self):
        self.proc.terminate()
        self.proc.wait(5)
        self.out.close()


def read_pgm(path):
    data = open(path, "rb").read()
    parts = data.split(maxsplit=4)
    w, h = int(parts[1]), int(parts[2])
    return w, h, data[len(data) - w * h:]


def run(desc, feed=None, timeout=60, on_handoff=None):
    """Runs a pipeline to EOS, error or timeout; returns (messages, pipeline
    kept in NULL for reading its properties)."""
    pipe = Gst.parse_launch(desc)
    if on_handoff:
        pipe.get_by_name("sink").connect("handoff", on_handoff)
    bus = pipe.get_bus()
    msgs = []
    if pipe.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        m = bus.pop_filtered(Gst.MessageType.ERROR)
        pipe.set_state(Gst.State.NULL)
        return [m] if m else [], pipe
    if feed:
        threading.Thread(target=feed, args=(pipe,), daemon=True).start()
    end = time.time() + timeout
    while time.time() < end:
        m = bus.timed_pop(100 * Gst.MSECOND)
        if not m:
            continue
        msgs.append(m)
        if m.type in (Gst.MessageType.EOS, Gst.MessageType.ERROR):
            break
    pipe.set_state(Gst.State.NULL)
    while True:   # what stopping posted
        m = bus.pop()
        if not m:
            break
        msgs.append(m)
    return msgs, pipe


def pgm_feed(path, frames):
    w, h, pix = read_pgm(path)
    stride = (w + 3) // 4 * 4
    rows = b"".join(pix[y * w:(y + 1) * w] + bytes(stride - w) for y in range(h))

    def feed(pipe):
        src = pipe.get_by_name("src")
        for i in range(frames):
            buf = Gst.Buffer.new_wrapped(rows)
            buf.pts = i * Gst.SECOND // 30
            buf.duration = Gst.SECOND // 30
            src.emit("push-buffer", buf)
        src.emit("end-of-stream")
    return w, h, feed


def autofill_regions(msgs):
    out = []
    for m in msgs:
        s = m.get_structure() if m.type == Gst.MessageType.ELEMENT else None
        if s and s.get_name() == "autofill":
            out.append([(r.get_value("id"), r.get_value("x"), r.get_value("y"),
                         r.get_value("width"), r.get_value("height"), r.get_value("area"))
                        for r in s.get_value("regions")])
    return out


def doc_regions(doc):
    return [(r["id"], r["x"], r["y"], r["width"], r["height"], r["params"]["region"]["area"])
            for r in doc["regions"]]


def measured_pipeline(w, h, sink):
    return (f"appsrc name=src format=time caps=video/x-raw,format=GRAY8,width={w},height={h},"
            f"framerate=30/1 ! autofill measure=true min-area=20 ! {sink} ! fakesink")


def make_ca(d, ca, srv):
    """in folder d: a CA (ca.crt, ca.key) of the test's own and a server
    certificate for 127.0.0.1 that it signed (srv.crt, srv.key)"""
    def ssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=d)
    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{ca}.key", "-out",
        f"{ca}.crt", "-days", "2", "-subj", f"/CN=fastvision test CA {ca}")
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{srv}.key", "-out", f"{srv}.csr",
        "-subj", "/CN=127.0.0.1")
    with open(os.path.join(d, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    ssl("x509", "-req", "-in", f"{srv}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key",
        "-CAcreateserial", "-out", f"{srv}.crt", "-days", "2", "-extfile", "san.ext")
