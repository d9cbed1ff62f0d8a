#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Soak test of pipelines/serve.py against hostile clients, on loopback only.

Starts the server with two mounts of the sample clip (looped, WxH), keeps a
well-behaved UDP client and a well-behaved TCP client on cam0 for the whole
run, and beside them repeats, round after round, what broke the shared-media
server before (issue #29):
  1. malformed requests (garbage, a request line of 64 KB, binary bytes);
  2. 200 TCP sessions (DESCRIBE, SETUP interleaved, PLAY) closed without
     TEARDOWN;
  3. a client of the other mount, and a late client of cam0 (the clip has
     looped by then), each of which must get frames;
  4. 10 TCP clients that SETUP and PLAY, then stop reading for 30 s (a small
     receive buffer), then vanish;
  5. 500 UDP sessions that SETUP and PLAY, then vanish (no TEARDOWN, nobody
     on their ports); then 15 s for their sessions to be dropped (those
     past the server's --max-clients were refused);
  0. before all that, a flood from three other loopback addresses (issue
     #38): 400 connections that DESCRIBE and hold on, 300 silent ones, 64
     sessions kept alive; the media waiting for a SETUP (at most a quarter
     of --max-pending a host), the connections (--max-connections-per-host),
     the silent ones (closed after --request-timeout) and the sessions a
     host (--max-clients-per-host) stay bounded, and a good client that
     comes during it gets frames.
The hostile rounds come from 127.0.0.2-5, the good clients from 127.0.0.1
(the server bounds what each address may hold).
Every WINDOW seconds it prints each good client's frame rate and the
server's resident memory. It passes when every window after the first keeps
each good client at >= 95% of the clip's 25 fps, every round's probe
clients got frames, the server's memory stays under 400 MB, and from the
end of the second round on it is flat (the last quarter's peak within 25%
+ 30 MB of the first quarter's; judged when two windows or more follow the
second round). The memory reaches its plateau over two rounds, not one:
275, 350, 350, 350 and 368 MB at the ends of five rounds on the 2-core CI
machine (the first round's plateau against the second's read as growth
there when other tests ran beside it).

    GST_PLUGIN_PATH=build/gst tests/rtsp_soak.py MINUTES [W H] [WINDOW]

Exits 77 where gst-rtsp-server's Python bindings are missing.
"""
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import gi
gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

RATE = 25.0          # the sample clip's frames a second
ATTACKER = "127.0.0.5"   # the hostile rounds' address (the good clients: 127.0.0.1)
LIMIT_MB = 400       # the server's resident memory at most, under every flood
KEEP = 0.95          # what a good client must keep of it

minutes = float(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else 1
w, h = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (320, 180)
window = float(sys.argv[4]) if len(sys.argv) > 4 else 10.0
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
stop = threading.Event()
log_lock = threading.Lock()


def say(*what):
    with log_lock:
        print(*what, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Rtsp:
    """A raw RTSP connection: requests by hand, so that it can misbehave."""

    def __init__(self, port, rcvbuf=0, src=None):
        self.s = socket.socket()
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        if src:   # another loopback address: another host to the server
            self.s.bind((src, 0))
        self.s.settimeout(10)
        self.s.connect(("127.0.0.1", port))
        self.port, self.cseq, self.session = port, 0, None

    def request(self, method, url, *headers):
        self.cseq += 1
        hs = ["CSeq: %d" % self.cseq] + list(headers)
        if self.session:
            hs.append("Session: %s" % self.session)
        self.s.sendall(("%s %s RTSP/1.0\r\n%s\r\n\r\n" % (method, url, "\r\n".join(hs)))
                       .encode())
        return self.response()

    def response(self):
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.s.recv(4096)
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
            while data.startswith(b"$") and len(data) >= 4:   # interleaved RTP: skip it
                n = int.from_bytes(data[2:4], "big")
                if len(data) < 4 + n:
                    break
                data = data[4 + n:]
        head, _, body = data.partition(b"\r\n\r\n")
        text = head.decode("latin-1")
        m = re.search(r"Content-Length:\s*(\d+)", text, re.I)
        n = int(m.group(1)) if m else 0
        while len(body) < n:
            body += self.s.recv(n - len(body))
        status = int(text.split()[1]) if text.startswith("RTSP/") else 0
        m = re.search(r"Session:\s*([^;\r\n]+)", text, re.I)
        if m:
            self.session = m.group(1).strip()
        return status, text, body.decode("latin-1")

    def play(self, mount, transport):
        """DESCRIBE, SETUP, PLAY; True when the server accepted all three"""
        url = "rtsp://127.0.0.1:%d/%s" % (self.port, mount)
        st, head, sdp = self.request("DESCRIBE", url, "Accept: application/sdp")
        if st != 200:
            return False
        media = sdp[sdp.find("m=video"):]   # the stream's control, not the session's
        m = re.search(r"a=control:(\S+)", media)
        control = m.group(1) if m else "stream=0"
        setup = control if control.startswith("rtsp://") else url + "/" + control
        st, _, _ = self.request("SETUP", setup, "Transport: " + transport)
        if st != 200:
            return False
        st, _, _ = self.request("PLAY", url, "Range: npt=0-")
        return st == 200

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


def good_client(port, protocol, counts):
    p = Gst.parse_launch("rtspsrc location=rtsp://127.0.0.1:%d/cam0 protocols=%s latency=200 ! "
                         "rtph264depay ! fakesink name=s sync=false" % (port, protocol))
    pad = p.get_by_name("s").get_static_pad("sink")
    pad.add_probe(Gst.PadProbeType.BUFFER,
                  lambda pad, info: (counts.append(time.monotonic()), Gst.PadProbeReturn.OK)[1])
    p.set_state(Gst.State.PLAYING)
    return p


def probe_client(port, mount, frames=20):
    """a short-lived well-behaved client: whether it got its frames"""
    try:
        r = subprocess.run(["gst-launch-1.0", "rtspsrc", "location=rtsp://127.0.0.1:%d/%s"
                            % (port, mount), "!", "rtph264depay", "!", "identity",
                            "eos-after=%d" % frames, "!", "fakesink"],
                           capture_output=True, text=True, timeout=30)
        return "Got EOS from element" in r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return False


def malformed(port):
    for payload in (b"GARBAGE\r\n\r\n", b"DESCRIBE " + b"x" * 65536 + b" RTSP/1.0\r\n\r\n",
                    bytes(range(256)) * 8, b"OPTIONS * RTSP/1.0\r\nCSeq: zz\r\n\r\n",
                    b"SETUP rtsp://127.0.0.1/cam0/stream=0 RTSP/1.0\r\nCSeq: 1\r\n"
                    b"Transport: nonsense\r\n\r\n"):
        try:
            c = Rtsp(port, src=ATTACKER)
            c.s.sendall(payload)
            c.s.settimeout(1)
            try:
                c.s.recv(4096)
            except OSError:
                pass
            c.close()
        except OSError:
            pass


def vanish_tcp(port, n):
    played = 0
    for _ in range(n):
        if stop.is_set():
            break
        try:
            c = Rtsp(port, src=ATTACKER)
            played += c.play("cam0", "RTP/AVP/TCP;unicast;interleaved=0-1")
            c.close()
        except (OSError, ConnectionError, ValueError):
            pass
    return played


def stall_tcp(port, n, seconds):
    conns = []
    for _ in range(n):
        try:
            c = Rtsp(port, rcvbuf=4096, src=ATTACKER)
            if c.play("cam0", "RTP/AVP/TCP;unicast;interleaved=0-1"):
                conns.append(c)   # and never read again
            else:
                c.close()
        except (OSError, ConnectionError, ValueError):
            pass
    stop.wait(seconds)
    for c in conns:
        c.close()
    return len(conns)


def vanish_udp(port, n):
    played = 0
    for i in range(n):
        if stop.is_set():
            break
        try:
            c = Rtsp(port, src=ATTACKER)
            base = 40000 + 2 * (i % 5000)
            played += c.play("cam0", "RTP/AVP;unicast;client_port=%d-%d" % (base, base + 1))
            c.close()
        except (OSError, ConnectionError, ValueError):
            pass
    return played


def flood(port, seconds=12):
    """from other hosts (127.0.0.2-4): 400 connections that DESCRIBE and hold
    on without SETUP, 300 that never say a word, 64 sessions kept alive with
    OPTIONS; the server must bound them (connections, media waiting for a
    SETUP, sessions a host) and keep serving the good clients. Returns what
    the server let through: described, silent ones still open, sessions."""
    held, described = [], 0
    for i in range(400):
        try:
            c = Rtsp(port, src="127.0.0.2")
            st, _, _ = c.request("DESCRIBE", "rtsp://127.0.0.1:%d/cam0" % port,
                                 "Accept: application/sdp")
            described += st == 200
            held.append(c)
        except (OSError, ConnectionError, ValueError):
            pass
    silent = []
    for i in range(300):
        try:
            silent.append(Rtsp(port, src="127.0.0.3"))
        except OSError:
            pass
    kept = []
    for i in range(64):
        try:
            c = Rtsp(port, src="127.0.0.4")
            if c.play("cam1", "RTP/AVP/TCP;unicast;interleaved=0-1"):
                kept.append(c)
            else:
                c.close()
        except (OSError, ConnectionError, ValueError):
            pass
    end = time.monotonic() + seconds
    while time.monotonic() < end and not stop.is_set():
        for c in kept:
            try:
                c.s.sendall(("OPTIONS rtsp://127.0.0.1:%d/cam1 RTSP/1.0\r\nCSeq: 99\r\n"
                             "Session: %s\r\n\r\n" % (port, c.session)).encode())
            except OSError:
                pass
        stop.wait(2)
    still = 0
    for c in silent:   # past --request-timeout: closed by the server
        c.s.settimeout(0.2)
        try:
            still += c.s.recv(1, socket.MSG_PEEK) != b""
        except socket.timeout:
            still += 1
        except OSError:
            pass
    for c in held + silent + kept:
        c.close()
    return described, still, len(kept)


def hostile(port, results):
    rnd = 0
    while not stop.is_set():
        rnd += 1
        t0 = time.monotonic()
        malformed(port)
        # in a process of its own: the good clients' counting here must
        # not wait for the flood's Python
        flooding = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--flood",
                                     str(port)], stdout=subprocess.PIPE, text=True)
        time.sleep(3)   # a good client arrives in the middle of the flood
        during = probe_client(port, "cam0")
        out, _ = flooding.communicate(timeout=120)
        fl = dict(zip(("described", "silent", "kept"), map(int, (out.split() + ["-1"] * 3)[:3])))
        tcp = vanish_tcp(port, 200)
        other = probe_client(port, "cam1")
        late = probe_client(port, "cam0")
        stalled = stall_tcp(port, 10, 30)
        udp = vanish_udp(port, 500)
        # the vanished sessions hold the server's slots (--max-clients) until
        # they are dropped, 10 s after their connections closed
        stop.wait(15)
        if stop.is_set():
            break
        results.append((rnd, other and during, late))
        print("ROUND %d %d %d %.3f" % (rnd, other and during, late, time.monotonic()),
              flush=True)
        say("round %d: flood from three other hosts: %d of 400 DESCRIBEs answered (media "
            "waiting for SETUP bounded), %d of 300 silent connections still open after the "
            "request timeout, %d of 64 kept-alive sessions; a client during the flood %s"
            % (rnd, fl.get("described", -1), fl.get("silent", -1), fl.get("kept", -1),
               "got frames" if during else "GOT NONE"))
        if fl.get("described", 999) > 8 or fl.get("silent", 999) > 0 or fl.get("kept", 999) > 16:
            results.append((rnd, False, False))
            print("ROUND %d 0 0 %.3f" % (rnd, time.monotonic()), flush=True)
        say("round %d: %.0f s; played: %d of 200 vanishing TCP, %d of 10 stalled TCP, %d of "
            "500 vanishing UDP (the rest refused: session limit); client of cam1 %s, late "
            "client of cam0 %s" % (rnd, time.monotonic() - t0, tcp, stalled, udp,
                                   "got frames" if other else "GOT NONE",
                                   "got frames" if late else "GOT NONE"))


def rss_mb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--hostile":   # the rounds' own process
        # below the server and the good clients: on the test's two cores the
        # attacker's own CPU is not what the server is measured on (the
        # flood goes lower still)
        os.nice(10)
        Gst.init(None)
        signal.signal(signal.SIGTERM, lambda *a: (stop.set(), sys.exit(0)))
        hostile(int(sys.argv[2]), [])
        return 0
    if len(sys.argv) > 2 and sys.argv[1] == "--flood":   # the flood's own process
        # at the lowest priority: what is measured is the server's cost of a
        # flood, not this machine's two cores shared with the attacker
        os.nice(19)
        print("%d %d %d" % flood(int(sys.argv[2])))
        return 0
    try:
        gi.require_version("GstRtspServer", "1.0")
    except ValueError as e:
        print("skipped: %s" % e)
        return 77
    Gst.init(None)
    port = free_port()
    err = tempfile.TemporaryFile(mode="w+")
    sample = os.path.join(root, "tests", "data", "sample-face.webm")
    server = subprocess.Popen(["/usr/bin/python3", os.path.join(root, "pipelines", "serve.py"),
                               "--port", str(port), "--width", str(w), "--height", str(h),
                               sample, sample], stdout=subprocess.PIPE, stderr=err, text=True)
    for line in server.stdout:
        if line.startswith("listening on"):
            break
    udp, tcp = [], []
    clients = [good_client(port, "udp", udp), good_client(port, "tcp", tcp)]
    results = []
    # the hostile rounds in a process of their own: their Python must not
    # hold this one's interpreter lock, which the good clients' counting
    # needs (it measured the test's own contention as the server's)
    attacker = None
    rounds_out = tempfile.TemporaryFile(mode="w+")
    loop = GLib.MainLoop()
    t0 = time.monotonic()
    end = t0 + minutes * 60
    rows = []

    def tick():
        now = time.monotonic()
        a = now - window
        rows.append((now - t0, sum(1 for t in udp if a <= t < now) / window,
                     sum(1 for t in tcp if a <= t < now) / window, rss_mb(server.pid)))
        say("%6.0f s  UDP %5.1f fps  TCP %5.1f fps  server %6.1f MB" % rows[-1])
        if now >= end or server.poll() is not None:
            loop.quit()
            return False
        return True

    def begin():
        nonlocal attacker
        attacker = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--hostile",
                                     str(port)], stdout=rounds_out, text=True)
        return False
    GLib.timeout_add(int(window * 1000), tick)
    GLib.timeout_add(int(window * 1000), begin)   # the clients settle first
    say("server on port %d: %d×%d, two mounts; good clients on cam0 (UDP, TCP); %g min, "
        "%g s windows" % (port, w, h, minutes, window))
    loop.run()
    stop.set()
    for c in clients:
        c.set_state(Gst.State.NULL)
    if attacker:
        attacker.terminate()
        try:
            attacker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            attacker.kill()
    rounds_out.seek(0)
    round_ends = {}   # round -> when it ended, seconds from the start
    for line in rounds_out:
        if line.startswith("ROUND "):
            _, rnd, o, l, at = line.split()
            results.append((int(rnd), o == "1", l == "1"))
            round_ends.setdefault(int(rnd), float(at) - t0)
        else:
            say(line.rstrip())
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
    failed = []
    low = [(t, u, c) for t, u, c, _ in rows[1:] if u < KEEP * RATE or c < KEEP * RATE]
    if low:
        failed.append("%d of %d windows below %.2f fps, first at %.0f s (UDP %.1f, TCP %.1f)"
                      % (len(low), len(rows) - 1, KEEP * RATE, *low[0]))
    if any(not o or not l for _, o, l in results):
        failed.append("a probe client got no frames: %s" % results)
    # memory: bounded (two rounds take the server to a plateau, of what
    # each host may hold) and flat from then on: the last quarter's peak
    # within 25% + 30 MB of the first quarter's, over the windows after the
    # second whole round (its floods, vanishing sessions and stalls all
    # reached twice). A run too short for that (fewer than two windows
    # after the second round) is checked against the bound only: before
    # then the memory is still climbing to its plateau, which is no leak.
    mem = [m for *_, m in rows]
    settled = [m for t, *_, m in rows if 2 in round_ends and t >= round_ends[2]]
    first = last = 0.0
    if len(settled) >= 2:
        q = max(1, len(settled) // 4)
        first, last = max(settled[:q]), max(settled[-q:])
        if last > first * 1.25 + 30:
            failed.append("memory grew from %.1f MB to %.1f MB after the second round"
                          % (first, last))
    else:
        say("memory: %d window(s) after the second whole round; its flatness is judged "
            "over two or more (only the %d MB bound is checked)" % (len(settled), LIMIT_MB))
    if max(mem) > LIMIT_MB:
        failed.append("the server took %.1f MB, more than the %d MB the limits allow"
                      % (max(mem), LIMIT_MB))
    if server.returncode not in (0, -15):
        failed.append("the server exited with %s" % server.returncode)
    worst_u = min((u for _, u, _, _ in rows[1:]), default=0)
    worst_c = min((c for _, _, c, _ in rows[1:]), default=0)
    say("%d rounds; worst window UDP %.1f fps, TCP %.1f fps (need %.2f); memory after the "
        "second round %.1f -> %.1f MB, peak %.1f MB"
        % (len(results), worst_u, worst_c, KEEP * RATE, first, last, max(mem, default=0)))
    err.seek(0)
    tail = err.read()[-2000:]
    if failed:
        say("FAIL " + "; ".join(failed))
        say("server's standard error (end):\n" + tail)
        return 1
    say("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
