#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""How many processed streams one machine serves in real time: starts
pipelines/serve.py with N mounts of the sample clip scaled to WxH (each
mount runs decode, vjdetect, satfilter roi-type=face and x264), pulls every
mount with an RTSP client on this machine (depayload only, no decoding),
and prints each stream's frame rate over the measuring window. A stream
keeps up when it delivers at least 95% of the clip's 25 fps.

    GST_PLUGIN_PATH=build/gst tests/bench/rtsp_streams.py N [W H] [SECONDS] [MIN_FPS]

MIN_FPS (default 95% of 25) is what each stream must deliver for exit 0;
the test suite runs it with a small frame and MIN_FPS 1 to prove serving
works on any machine.
"""
import socket
import subprocess
import sys
import time

import gi
gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1
w, h = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (1920, 1080)
secs = float(sys.argv[4]) if len(sys.argv) > 4 else 30
min_fps = float(sys.argv[5]) if len(sys.argv) > 5 else 0.95 * 25
with socket.socket() as s_:   # a free port: a second run on the host does not collide
    s_.bind(("127.0.0.1", 0))
    port = str(s_.getsockname()[1])
server = subprocess.Popen(["/usr/bin/python3", "pipelines/serve.py", "--port", port, "--width",
                           str(w), "--height", str(h)] + ["tests/data/sample-face.webm"] * n,
                          stdout=subprocess.PIPE, text=True)
for line in server.stdout:   # the mounts, then the listening socket
    if line.startswith("listening on"):
        break
Gst.init(None)
counts = [[] for _ in range(n)]
pipes = []
for i in range(n):
    p = Gst.parse_launch("rtspsrc location=rtsp://127.0.0.1:%s/cam%d latency=200 protocols=tcp ! "
                         "rtph264depay ! fakesink name=s sync=false" % (port, i))
    pad = p.get_by_name("s").get_static_pad("sink")
    pad.add_probe(Gst.PadProbeType.BUFFER, lambda pad, info, i=i:
                  (counts[i].append(time.monotonic()), Gst.PadProbeReturn.OK)[1])
    p.set_state(Gst.State.PLAYING)
    pipes.append(p)
loop = GLib.MainLoop()
warm = 8.0   # connection, plan building and the first frames
GLib.timeout_add(int((warm + secs) * 1000), loop.quit)
t0 = time.monotonic()
loop.run()
rates = []
for i in range(n):
    ts = [t for t in counts[i] if t0 + warm <= t <= t0 + warm + secs]
    rates.append(len(ts) / secs)
for p in pipes:
    p.set_state(Gst.State.NULL)
server.terminate()
server.wait()
keep = all(r >= min_fps for r in rates)
print("%d stream(s) of %dx%d: %s fps each; %s" % (n, w, h, ", ".join("%.1f" % r for r in rates),
      "all keep up" if keep else "NOT all keep up"))
sys.exit(0 if keep else 1)
