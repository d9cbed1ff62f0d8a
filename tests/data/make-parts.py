#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Makes parts.webm, the inspection line's sample clip: bright parts on a
dark belt, moving left past the camera, made from the binary shapes beside
this file (pic1.pgm negated: a plate with seven holes and solid parts;
pic3.pgm's four outlines made solid: rings). 400x300, 25 fps, 120 frames,
VP8 at a high bit rate so that the edges stay sharp.

    /usr/bin/python3 tests/data/make-parts.py tests/data/parts.webm"""
import sys

import numpy as np
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst

HERE = sys.path[0]


def read_pgm(name):
    data = open(f"{HERE}/{name}", "rb").read()
    parts = data.split(maxsplit=4)
    w, h = int(parts[1]), int(parts[2])
    return np.frombuffer(data[len(data) - w * h:], np.uint8).reshape(h, w)


def main():
    out = sys.argv[1]
    plate = 255 - read_pgm("pic1.pgm")                          # white parts, black belt
    rings = np.where(read_pgm("pic3.pgm") < 200, 255, 0).astype(np.uint8)
    gap = np.zeros((300, 80), np.uint8)
    strip = np.hstack([np.zeros((300, 400), np.uint8), plate, gap, rings, gap, plate,
                       np.zeros((300, 400), np.uint8)])
    w, h, frames, step = 400, 300, 120, (strip.shape[1] - 400) // 120
    Gst.init(None)
    pipe = Gst.parse_launch(
        f"appsrc name=src format=time caps=video/x-raw,format=GRAY8,width={w},height={h},"
        "framerate=25/1 ! videoconvert ! video/x-raw,format=I420 ! "
        "vp8enc target-bitrate=2000000 keyframe-max-dist=25 deadline=0 ! webmmux ! "
        f"filesink location={out}")
    src = pipe.get_by_name("src")
    pipe.set_state(Gst.State.PLAYING)
    for i in range(frames):
        frame = np.ascontiguousarray(strip[:, i * step:i * step + w])
        buf = Gst.Buffer.new_wrapped(frame.tobytes())
        buf.pts = i * Gst.SECOND // 25
        buf.duration = Gst.SECOND // 25
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    msg = pipe.get_bus().timed_pop_filtered(60 * Gst.SECOND,
                                            Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    if not msg or msg.type != Gst.MessageType.EOS:
        sys.exit("encoding failed")


if __name__ == "__main__":
    main()
