#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/serve.py against real RTSP clients (gst-launch-1.0 rtspsrc), on
free loopback ports:
- with no input it serves the sample clip, on 127.0.0.1 only by default;
- --user NAME:PASSWORD: a client without credentials is refused (401), one
  with them gets frames (basic and digest);
- --tls-cert/--tls-key (a certificate the test makes with openssl): an
  rtsps:// client gets frames;
- an input that does not exist is said at start and when a client asks;
- a file mount serves a client who joins after the file's end (it loops),
  and a second client while the first stays.

    test_serve.py SOURCE_DIR
Exits 77 where gst-rtsp-server's Python bindings are missing."""
import base64
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from fvcheck import Checks  # noqa: E402

root = sys.argv[1]
check = Checks()




def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(*args):
    port = free_port()
    # its standard error to a file: a pipe nobody reads could fill and stall it
    err = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen(["/usr/bin/python3", f"{root}/pipelines/serve.py", "--port", str(port),
                          *args], stdout=subprocess.PIPE, stderr=err, text=True)
    p.err = err
    first = p.stdout.readline()   # the first mount
    line = first
    while line and not line.startswith("listening on"):   # then the listening socket
        line = p.stdout.readline()
    if not line:
        err.seek(0)
        raise RuntimeError(err.read())
    p.listening = line
    return p, port, first


def client(url, *props, frames=10):
    """whether the frames arrived: the pipeline reached EOS after them (an
    error from the connection's teardown after that does not count)"""
    r = subprocess.run(["gst-launch-1.0", "rtspsrc", f"location={url}", *props, "!",
                        "decodebin", "!", "identity", f"eos-after={frames}", "!", "fakesink"],
                       capture_output=True, text=True, timeout=60)
    out = r.stdout + r.stderr
    return "Got EOS from element" in out, out[-400:]


def stop(p):
    p.terminate()
    out, _ = p.communicate(timeout=10)
    p.err.seek(0)
    err = p.err.read()
    p.err.close()
    return out, err


def listening_on(port):
    r = subprocess.run(["ss", "-ltn"], capture_output=True, text=True)
    return [l.split()[3] for l in r.stdout.splitlines()[1:] if l.split()[3].endswith(f":{port}")]


def main():
    try:
        import gi
        gi.require_version("GstRtspServer", "1.0")
    except (ImportError, ValueError) as e:
        print(f"skipped: {e}")
        return 77
    tmp = tempfile.mkdtemp(prefix="fvserve")
    try:
        p, port, first = serve()
        ok, why = client(f"rtsp://127.0.0.1:{port}/cam0")
        check(ok and "sample-face.webm" in first, f"default input: {first.strip()} {why}")
        if shutil.which("ss"):
            where = listening_on(port)
            check(where and all(a.startswith("127.0.0.1") for a in where),
                  f"listens on {where}, not only 127.0.0.1")
        stop(p)
        for method in ("basic", "digest"):
            p, port, _ = serve("--user", "cam:s3cret", "--auth", method)
            check(f"clients must authenticate ({method}, 1 user: cam)" in p.listening
                  and "TLS off" in p.listening, f"{method}: the start says {p.listening!r}")
            ok, why = client(f"rtsp://127.0.0.1:{port}/cam0")
            check(not ok and "Unauthorized" in why, f"{method}: no credentials: {ok} {why}")
            ok, why = client(f"rtsp://127.0.0.1:{port}/cam0", "user-id=cam", "user-pw=s3cret")
            check(ok, f"{method}: with credentials: {why}")
            ok, why = client(f"rtsp://127.0.0.1:{port}/cam0", "user-id=cam", "user-pw=wrong")
            check(not ok, f"{method}: a wrong password got in")
            stop(p)
        # guessing from another host: after 5 failures the host is answered
        # 503 (locked out, doubling), while a client with the password from
        # another address gets in
        p, port, _ = serve("--user", "cam:s3cret")
        codes = []
        bad = "Basic " + base64.b64encode(b"cam:guess").decode()
        for i in range(20):
            with socket.socket() as s:
                s.bind(("127.0.0.2", 0))
                s.settimeout(10)
                s.connect(("127.0.0.1", port))
                s.sendall(f"DESCRIBE rtsp://127.0.0.1:{port}/cam0 RTSP/1.0\r\nCSeq: 1\r\n"
                          f"Authorization: {bad}\r\n\r\n".encode())
                codes.append(int(s.recv(4096).split()[1]))
        check(codes[:5] == [401] * 5 and codes[5:] == [503] * 15,
              f"guessing passwords: answers {codes}")
        ok, why = client(f"rtsp://127.0.0.1:{port}/cam0", "user-id=cam", "user-pw=s3cret")
        check(ok, f"the right password from another host during the lock-out: {why}")
        stop(p)
        if shutil.which("openssl"):
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                            "-keyout", f"{tmp}/k.pem", "-out", f"{tmp}/c.pem", "-days", "2",
                            "-subj", "/CN=127.0.0.1"], check=True, capture_output=True)
            p, port, first = serve("--tls-cert", f"{tmp}/c.pem", "--tls-key", f"{tmp}/k.pem")
            ok, why = client(f"rtsps://127.0.0.1:{port}/cam0", "tls-validation-flags=0")
            check(ok and first.startswith("rtsps://"), f"TLS: {first.strip()} {why}")
            check("TLS on" in p.listening and "no authentication" in p.listening,
                  f"TLS: the start says {p.listening!r}")
            stop(p)
            # 300 silent TLS connections from another address (no handshake):
            # past the per-host bound they are closed at once, the rest after
            # the request timeout, and a good client's handshake goes through
            p, port, _ = serve("--tls-cert", f"{tmp}/c.pem", "--tls-key", f"{tmp}/k.pem",
                               "--request-timeout", "3")
            silent = []
            for i in range(300):
                try:
                    s = socket.socket()
                    s.bind(("127.0.0.2", 0))
                    s.connect(("127.0.0.1", port))
                    silent.append(s)
                except OSError:
                    pass
            ok, why = client(f"rtsps://127.0.0.1:{port}/cam0", "tls-validation-flags=0")
            check(ok, f"TLS: a good client during 300 silent connections: {why}")
            time.sleep(4)
            open_after = 0
            for s in silent:
                s.settimeout(0.2)
                try:
                    open_after += s.recv(1, socket.MSG_PEEK) != b""
                except socket.timeout:
                    open_after += 1
                except OSError:
                    pass
                s.close()
            check(open_after == 0, f"TLS: {open_after} silent connections still open after the "
                  "request timeout")
            stop(p)
        # a 2 s clip: clients joining after its end still get frames
        subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=50", "!",
                        "video/x-raw,width=160,height=120,framerate=25/1", "!", "vp8enc", "!",
                        "webmmux", "!", "filesink", f"location={tmp}/short.webm"], check=True)
        p, port, _ = serve(f"{tmp}/short.webm")
        time.sleep(4)
        stay = subprocess.Popen(["gst-launch-1.0", "rtspsrc",
                                 f"location=rtsp://127.0.0.1:{port}/cam0", "!", "fakesink"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(3)   # past the end again, the first client still there
        ok, why = client(f"rtsp://127.0.0.1:{port}/cam0", frames=30)
        check(ok, f"a client after the file's end (another one watching): {why}")
        stay.terminate()
        stay.wait()
        stop(p)
        p, port, _ = serve(f"{tmp}/nothing-here.webm")
        ok, why = client(f"rtsp://127.0.0.1:{port}/cam0", frames=2)
        out, err = stop(p)
        check(not ok and "nothing-here.webm: no such file" in err
              and "a client asked for" in err, f"missing input: {err[-400:]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
