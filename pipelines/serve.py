#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Serves processed video over RTSP (gst-rtsp-server): one mount per input,
each running the privacy filter (vjdetect ! satfilter roi-type=face) and
H.264 (x264, zero latency) over RTP. Inputs: camera devices (/dev/video0),
files (played once, at their own rate), or rtsp:// URLs of upstream
cameras. A deployment scales by
running one server per host or per GPU; clients need nothing but RTSP.

    pipelines/serve.py [--port 8554] [--width W --height H]
                       [--publish LOCATION] INPUT [INPUT...]
    -> rtsp://HOST:8554/cam0, /cam1, ...

--publish sends each mount's detections out as JSON documents through
metapublish (docs/metapublish.md): mqtt://BROKER[:PORT]/TOPIC ({stream}
becomes HOSTNAME-camN), a file or -.
"""
import argparse
import os
import socket
import sys

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

CHAIN = ("videoconvert ! vjdetect ! satfilter roi-type=face radius=12 ! {publish}videoconvert ! "
         "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! "
         "rtph264pay name=pay0 pt=96 config-interval=1")


def chain(publish, name):
    pub = "metapublish location=%s stream-name=%s ! " % (publish, name) if publish else ""
    return CHAIN.format(publish=pub)


def source_for(inp, width, height):
    if inp.startswith("/dev/video"):
        src = "v4l2src device=%s" % inp
    elif "://" in inp:
        src = "uridecodebin uri=%s" % inp
    else:   # a file plays once, at its own rate
        src = "uridecodebin uri=%s" % Gst.filename_to_uri(os.path.abspath(inp))
    if width and height:
        src += " ! videoscale ! video/x-raw,width=%d,height=%d" % (width, height)
    return src


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", default="8554")
    ap.add_argument("--width", type=int, default=0)
    ap.add_argument("--height", type=int, default=0)
    ap.add_argument("--publish", default="",
                    help="metapublish location for every mount's detections")
    ap.add_argument("inputs", nargs="+")
    args = ap.parse_args()
    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_service(args.port)
    mounts = server.get_mount_points()
    for i, inp in enumerate(args.inputs):
        factory = GstRtspServer.RTSPMediaFactory()
        name = "%s-cam%d" % (socket.gethostname(), i)
        factory.set_launch("( %s ! %s )" % (source_for(inp, args.width, args.height),
                                            chain(args.publish, name)))
        factory.set_shared(True)   # one pipeline a mount, whatever the number of clients
        mounts.add_factory("/cam%d" % i, factory)
        print("rtsp://127.0.0.1:%s/cam%d <- %s" % (args.port, i, inp), flush=True)
    if server.attach(None) == 0:
        print("cannot listen on port %s" % args.port, file=sys.stderr)
        return 1
    GLib.MainLoop().run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
