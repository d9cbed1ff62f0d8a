#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""metapublish against real parts: Debian's mosquitto broker on a free
loopback port, mosquitto_sub as the subscriber (QoS 1, a persistent
session), autofill's measured regions as the metas.

- a file: one JSON line a frame, fields equal to autofill's messages;
  rotation at max-size keeps at most two files of bounded size;
- MQTT at QoS 1: every frame's document arrives, fields equal the metas;
- the broker stopped and restarted mid-stream: frames keep flowing at the
  live source's rate, one warning, a "connected" message after it, and
  every document is either delivered or counted as dropped (a small
  max-queued drops some, counted);
- a port nobody listens on: one warning, the pipeline runs to the end, the
  documents counted as dropped;
- locations and TLS files that cannot work: a clear error at start.

    test_metapublish.py DATA_DIR

Exits 77 (skipped) where PyGObject or the mosquitto broker and clients are
missing."""
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


def test_file(data, tmp):
    path = os.path.join(tmp, "docs.jsonl")
    w, h, feed = pgm_feed(os.path.join(data, "pic1.pgm"), 12)
    msgs, _ = run(measured_pipeline(w, h, f"metapublish location={path} stream-name=cam1"),
                  feed)
    docs = [json.loads(line) for line in open(path)]
    want = autofill_regions(msgs)
    check(len(docs) == 12 and len(want) == 12, f"file: {len(docs)} documents for 12 frames")
    for i, d in enumerate(docs):
        check(d["stream"] == "cam1" and d["frame"] == i and d["pts"] == i * Gst.SECOND // 30
              and d["width"] == w and d["height"] == h and "wall_clock" in d,
              f"file: frame {i} header {d}")
        check(doc_regions(d) == want[i] and all(r["type"] == "region" for r in d["regions"]),
              f"file: frame {i} regions differ from autofill's message")
    # rotation: at most two files, each bounded by max-size and one document
    path = os.path.join(tmp, "rot.jsonl")
    line = len(open(os.path.join(tmp, "docs.jsonl")).readline())
    _, _, feed = pgm_feed(os.path.join(data, "pic1.pgm"), 60)
    run(measured_pipeline(w, h, f"metapublish location={path} max-size={4 * line}"), feed)
    files = sorted(f for f in os.listdir(tmp) if f.startswith("rot.jsonl"))
    check(files == ["rot.jsonl", "rot.jsonl.1"], f"rotation: files {files}")
    sizes = [os.path.getsize(os.path.join(tmp, f)) for f in files]
    check(all(0 < s <= 4 * line for s in sizes), f"rotation: sizes {sizes}, max {4 * line}")
    old = [json.loads(x)["frame"] for x in open(path + ".1")]
    new = [json.loads(x)["frame"] for x in open(path)]
    check(old and new and old == list(range(old[0], old[-1] + 1)) and new[0] == old[-1] + 1
          and new[-1] == 59, f"rotation: frames {old} then {new}")


def test_mqtt(data, tmp, port):
    sub = Subscriber(tmp, port, "fv/cam2", "all")
    w, h, feed = pgm_feed(os.path.join(data, "pic3.pgm"), 100)
    msgs, pipe = run(measured_pipeline(
        w, h, f"metapublish name=pub location=mqtt://127.0.0.1:{port}/fv/{{stream}} "
        "stream-name=cam2 qos=1"), feed)
    docs = sub.documents()
    sub.close()
    want = autofill_regions(msgs)
    check(sorted(docs) == list(range(100)), f"mqtt: frames received {len(docs)} of 100")
    check(all(doc_regions(docs[i]) == want[i] for i in docs), "mqtt: regions differ")
    pub = pipe.get_by_name("pub")
    check(pub.get_property("delivered") == 100 and pub.get_property("dropped") == 0,
          f"mqtt: delivered {pub.get_property('delivered')} dropped "
          f"{pub.get_property('dropped')}")
    warnings = [m for m in msgs if m.type == Gst.MessageType.WARNING]
    check(not warnings, f"mqtt: {len(warnings)} warnings with the broker up")


def test_outage(tmp, port, broker, max_queued, name):
    """a live source at 30 fps for 8 s; the broker away from 2 s to 4.5 s"""
    sub = Subscriber(tmp, port, f"fv/{name}", name)
    times = []
    frames = 240

    def outage():
        time.sleep(2.0)
        broker.stop()
        time.sleep(2.5)
        broker.start()
    threading.Thread(target=outage, daemon=True).start()
    msgs, pipe = run(
        f"videotestsrc is-live=true num-buffers={frames} ! video/x-raw,width=64,height=48,"
        f"framerate=30/1 ! metapublish name=pub location=mqtt://127.0.0.1:{port}/fv/{name} "
        f"max-queued={max_queued} ! fakesink name=sink signal-handoffs=true sync=false",
        timeout=40, on_handoff=lambda *a: times.append(time.monotonic()))
    docs = sub.documents(2.0)
    sub.close()
    pub = pipe.get_by_name("pub")
    dropped = pub.get_property("dropped")
    gaps = max(b - a for a, b in zip(times, times[1:])) if len(times) > 1 else 99
    check(len(times) == frames and gaps < 0.2,
          f"outage {name}: {len(times)} of {frames} frames, longest gap {gaps:.3f} s")
    warnings = [m for m in msgs if m.type == Gst.MessageType.WARNING
                and "broker" in m.parse_warning()[0].message]
    check(len(warnings) == 1, f"outage {name}: {len(warnings)} broker warnings, want 1")
    back = [m for m in msgs if m.type == Gst.MessageType.ELEMENT
            and m.get_structure().get_name() == "metapublish"
            and m.get_structure().get_value("event") == "connected"]
    check(len(back) == 1, f"outage {name}: {len(back)} 'connected' messages, want 1")
    check(len(docs) + dropped == frames and set(docs) <= set(range(frames)),
          f"outage {name}: {len(docs)} delivered + {dropped} dropped != {frames}")
    return len(docs), dropped


def test_unreachable(port):
    msgs, pipe = run(f"videotestsrc num-buffers=30 ! metapublish name=pub "
                     f"location=mqtt://127.0.0.1:{port}/x ! fakesink", timeout=30)
    check(any(m.type == Gst.MessageType.EOS for m in msgs), "unreachable: no EOS")
    warnings = [m.parse_warning()[0].message for m in msgs if m.type == Gst.MessageType.WARNING]
    check(len([w for w in warnings if "not reachable" in w]) == 1,
          f"unreachable: warnings {warnings}")
    check(pipe.get_by_name("pub").get_property("dropped") == 30,
          f"unreachable: dropped {pipe.get_by_name('pub').get_property('dropped')}, want 30")


def test_tls_and_login(data, tmp):
    """a broker that takes TLS only (a CA of the test's own) and a password:
    with the CA file and the right credentials every document arrives; with
    a wrong password one warning says the broker refused, the stream runs"""
    if not shutil.which("openssl") or not shutil.which("mosquitto_passwd"):
        print("no openssl or mosquitto_passwd: the TLS part is skipped")
        return
    d = os.path.join(tmp, "tls")
    os.mkdir(d)

    def ssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=d)
    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
        "-days", "2", "-subj", "/CN=fastvision test CA")
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr",
        "-subj", "/CN=127.0.0.1")
    with open(os.path.join(d, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    ssl("x509", "-req", "-in", "srv.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "srv.crt", "-days", "2", "-extfile", "san.ext")
    subprocess.run(["mosquitto_passwd", "-c", "-b", os.path.join(d, "pw"), "cam", "s3cret"],
                   check=True, capture_output=True)
    os.chmod(os.path.join(d, "pw"), 0o600)
    port = free_port()
    conf = os.path.join(d, "m.conf")
    with open(conf, "w") as f:
        f.write(f"listener {port} 127.0.0.1\ncafile {d}/ca.crt\ncertfile {d}/srv.crt\n"
                f"keyfile {d}/srv.key\nallow_anonymous false\npassword_file {d}/pw\n{AS_ME}")
    broker = subprocess.Popen([MOSQUITTO, "-c", conf], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        sub = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "--cafile",
                                f"{d}/ca.crt", "-u", "cam", "-P", "s3cret", "-t", "fv/tls",
                                "-q", "1", "-C", "20", "-W", "30"], stdout=subprocess.PIPE,
                               text=True)
        time.sleep(1.0)
        w, h, feed = pgm_feed(os.path.join(data, "pic1.pgm"), 20)
        msgs, _ = run(measured_pipeline(
            w, h, f"metapublish location=mqtt://127.0.0.1:{port}/fv/tls "
            f"tls-ca-file={d}/ca.crt username=cam password=s3cret"), feed)
        out, _ = sub.communicate(timeout=40)
        got = sorted(json.loads(x)["frame"] for x in out.splitlines() if x.strip())
        check(got == list(range(20)), f"TLS: {len(got)} of 20 documents")
        check(not [m for m in msgs if m.type == Gst.MessageType.WARNING], "TLS: warnings")
        msgs, _ = run(f"videotestsrc num-buffers=30 ! metapublish location=mqtt://127.0.0.1:"
                      f"{port}/fv/tls tls-ca-file={d}/ca.crt username=cam password=wrong ! "
                      "fakesink", timeout=30)
        warnings = [m.parse_warning()[0].message for m in msgs
                    if m.type == Gst.MessageType.WARNING]
        check(any(m.type == Gst.MessageType.EOS for m in msgs)
              and len([x for x in warnings if "refused" in x]) == 1,
              f"wrong password: warnings {warnings}")
    finally:
        broker.terminate()
        broker.wait(5)


def test_refusals(tmp):
    cases = [("location=mqtt://:1883/t", "mqtt://HOST"),
             ("location=mqtt://127.0.0.1:70000/t", "a port of 1 to 65535"),
             ("location=mqtt://127.0.0.1/", "mqtt://HOST"),
             ("location=mqtt://127.0.0.1/a/# ", "without wildcards"),
             ("location=kafka://x/y", "only file paths"),
             (f"location={tmp}/no/such/dir/f.jsonl", "Cannot open"),
             ("location=mqtt://127.0.0.1:1/t tls-ca-file=/no/such/ca.pem", "TLS files")]
    for props, words in cases:
        msgs, _ = run(f"videotestsrc num-buffers=1 ! metapublish {props} ! fakesink")
        errors = [m.parse_error()[0].message for m in msgs if m.type == Gst.MessageType.ERROR]
        check(len(errors) == 1 and words in errors[0], f"refusal {props}: {errors}")


def main():
    data = sys.argv[1]
    Gst.init(None)
    tmp = tempfile.mkdtemp(prefix="fvpub")
    port = free_port()
    broker = Broker(tmp, port)
    broker.start()
    try:
        test_file(data, tmp)
        test_mqtt(data, tmp, port)
        got, dropped = test_outage(tmp, port, broker, 1000, "outage")
        check(dropped == 0, f"outage: {dropped} dropped with room for all in the queue")
        got, dropped = test_outage(tmp, port, broker, 10, "small-queue")
        check(dropped > 0, "small queue: nothing dropped during the outage")
        test_unreachable(free_port())
        test_tls_and_login(data, tmp)
        test_refusals(tmp)
    finally:
        broker.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
