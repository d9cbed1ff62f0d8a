#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""metapublish recovering from brokers that misbehave: one that answers
CONNECT with a malformed CONNACK (code 6, or a 0xff byte), one whose TLS
certificate is another CA's, one that takes the connection and stops
reading (QoS 0): each for a while, then a real broker (Debian's mosquitto)
on the same port gets every document.

    test_metapublish_recovery.py DATA_DIR

Exits 77 (skipped) where PyGObject or the mosquitto broker and clients are
missing."""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mqtttest import (  # noqa: E402
    AS_ME, Broker, Gst, MOSQUITTO, check, free_port, make_ca, run, wait_port)


class FakeBroker:
    """A server on 127.0.0.1:port that misbehaves: `reply` (bytes) is sent
    after reading the client's CONNECT, then the connection is closed, or,
    with stall, kept open and never read again. Accepts until stopped."""

    def __init__(self, port, reply, stall=False):
        self.port, self.reply, self.stall = port, reply, stall
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if stall:   # a small window: the client's writes stop soon
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.held, self.accepted, self.running = [], 0, True
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while self.running:
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            try:
                c.settimeout(2)
                c.recv(4096)   # CONNECT
                c.sendall(self.reply)
            except OSError:
                pass
            if self.stall:
                self.held.append(c)
            else:
                c.close()

    def stop(self):
        self.running = False
        self.thread.join(2)
        self.sock.close()
        for c in self.held:
            c.close()


def live_run(location, frames, extra="", swap=None, timeout=60):
    """A live source of `frames` at 30 fps into metapublish; swap() runs in a
    thread alongside. Returns (messages, delivered, dropped)."""
    if swap:
        threading.Thread(target=swap, daemon=True).start()
    msgs, pipe = run(f"videotestsrc is-live=true num-buffers={frames} ! video/x-raw,width=64,"
                     f"height=48,framerate=30/1 ! metapublish name=pub location={location} "
                     f"keepalive=5 {extra} ! fakesink sync=false", timeout=timeout)
    pub = pipe.get_by_name("pub")
    return msgs, pub.get_property("delivered"), pub.get_property("dropped")


def test_recovery(tmp):
    """Each misbehaving broker for a while, then a real one on the port: the
    element recovers (the documents queued meanwhile are delivered), with
    one warning for the outage; before, one malformed reply or one failed
    TLS handshake ended its network thread for good."""
    for name, reply in (("CONNACK code 6", b"\x20\x02\x00\x06"), ("a 0xff byte", b"\xff")):
        port = free_port()
        fake = FakeBroker(port, reply)
        os.mkdir(os.path.join(tmp, f"r{port}"))
        broker = Broker(os.path.join(tmp, f"r{port}"), port)

        def swap():
            time.sleep(2.0)
            fake.stop()
            broker.start()
        try:
            msgs, delivered, dropped = live_run(f"mqtt://127.0.0.1:{port}/fv/rec", 180,
                                                swap=swap)
        finally:
            broker.stop()
        warnings = [m.parse_warning()[0].message for m in msgs
                    if m.type == Gst.MessageType.WARNING]
        check(fake.accepted >= 1 and delivered == 180 and dropped == 0,
              f"recovery after {name}: {fake.accepted} tries at the bad broker, delivered "
              f"{delivered}, dropped {dropped} of 180")
        check(len(warnings) == 1 and "broker" in warnings[0],
              f"recovery after {name}: warnings {warnings}")


def test_tls_recovery(tmp):
    """a broker with another CA's certificate for 2 s, then the right one"""
    if not shutil.which("openssl"):
        print("no openssl: the TLS recovery part is skipped")
        return
    d = os.path.join(tmp, "tlsrec")
    os.mkdir(d)
    for ca in ("good", "other"):
        make_ca(d, f"{ca}-ca", ca)
    port = free_port()

    def start(ca):
        conf = os.path.join(d, f"{ca}.conf")
        with open(conf, "w") as f:
            f.write(f"listener {port} 127.0.0.1\ncafile {d}/{ca}-ca.crt\ncertfile {d}/{ca}.crt\n"
                    f"keyfile {d}/{ca}.key\nallow_anonymous true\n{AS_ME}")
        p = subprocess.Popen([MOSQUITTO, "-c", conf], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        wait_port(port)
        return p
    procs = [start("other")]

    def swap():
        time.sleep(2.0)
        procs[0].terminate()
        procs[0].wait(5)
        wait_port(port, up=False)
        procs.append(start("good"))
    try:
        msgs, delivered, dropped = live_run(f"mqtt://127.0.0.1:{port}/fv/tls",
                                            150, f"tls-ca-file={d}/good-ca.crt", swap=swap)
    finally:
        for p in procs:
            p.terminate()
            p.wait(5)
    warnings = [m.parse_warning()[0].message for m in msgs if m.type == Gst.MessageType.WARNING]
    check(delivered == 150 and dropped == 0,
          f"TLS recovery: delivered {delivered}, dropped {dropped} of 150; warnings {warnings}")
    check(len(warnings) == 1 and "TLS" in warnings[0], f"TLS recovery: warnings {warnings}")


def test_stalled_broker(tmp):
    """QoS 0 to a broker that takes the connection and never reads again
    (large documents fill the socket): the connection is dropped and made
    again, and once a real broker is on the port documents flow; before,
    the 64 unacknowledged slots were never freed and every later document
    was dropped"""
    port = free_port()
    fake = FakeBroker(port, b"\x20\x02\x00\x00", stall=True)
    os.mkdir(os.path.join(tmp, "stall"))
    broker = Broker(os.path.join(tmp, "stall"), port)

    def swap():
        time.sleep(12.0)
        fake.stop()
        broker.start()
    big = "s" * 60000
    try:
        msgs, delivered, dropped = live_run(f"mqtt://127.0.0.1:{port}/fv/stall", 660,
                                            f"mqtt-qos=0 stream-name={big}", swap=swap,
                                            timeout=90)
    finally:
        broker.stop()
    check(delivered + dropped == 660 and delivered > 120,
          f"stalled broker: delivered {delivered}, dropped {dropped} of 660")


def main():
    Gst.init(None)
    tmp = tempfile.mkdtemp(prefix="fvpubr")
    try:
        test_recovery(tmp)
        test_tls_recovery(tmp)
        test_stalled_broker(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
