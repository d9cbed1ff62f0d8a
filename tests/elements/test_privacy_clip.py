#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The whole privacy pipeline blurs every face-frame of a short synthetic
clip (tests/common/fvclip.py: faces entering and leaving, moving, growing,
turning up to TURN degrees in the image plane, crossing an occluder, under
changing light and motion blur), judged on the pixels that leave it.

    appsrc ! tee ! vjdetect angles=-30,-15,0,15,30 ! roitrack delay=4 !
                   satfilter roi-type=face ! appsink
                 ! satfilter (the whole frame blurred: the reference)   ! appsink

A pixel is blurred when it equals the whole-frame filter's pixel (region
mode equals the whole-frame filter inside its regions, exactly: the
satfilter tests); pixels the filter leaves unchanged are not counted. A
face-frame is exposed when less than 90% of its inner box (the middle 80%)
is blurred. The same clip through the detector alone, without the tracker,
must expose some face-frames, or the clip tests nothing.

    GST_PLUGIN_PATH=build/gst test_privacy_clip.py [W H FRAMES SEED]
"""
import os
import sys

import numpy as np

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
try:
    from fvclip import make_clip  # noqa: E402 (numpy and scipy.ndimage)
except ImportError as e:
    print("SKIP: %s" % e)
    sys.exit(77)

TURN = 20
ANGLES = "-30,-15,0,15,30"
DELAY = 4
# over-blur bound: 11.1% measured 2026-11-27; the chain with every turned
# box and confirm=1 (about the tracker before) blurs 21.2% (docs/privacy.md)
MAX_OVER_BLUR = 15.0


def blur_through(desc, clip, W, H):
    """the frames out of DESC and out of the whole-frame filter"""
    pipe = Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=%d,height=%d,"
        "framerate=25/1 ! tee name=t t. ! queue ! %s ! satfilter roi-type=face ! "
        "appsink name=priv sync=false t. ! queue ! satfilter ! appsink name=full sync=false"
        % (W, H, desc))
    src, priv, full = (pipe.get_by_name(n) for n in ("src", "priv", "full"))
    src.set_property("max-bytes", 0)   # the whole clip in, then read (roitrack may hold frames)
    pipe.set_state(Gst.State.PLAYING)
    for i, (img, _) in enumerate(clip):
        buf = Gst.Buffer.new_wrapped(img.tobytes())
        buf.pts = i * Gst.SECOND // 25
        buf.duration = Gst.SECOND // 25
        if src.emit("push-buffer", buf) != Gst.FlowReturn.OK:
            raise SystemExit("push failed at frame %d" % i)
    src.emit("end-of-stream")
    out = []
    for i in range(len(clip)):
        got = []
        for sink in (priv, full):
            sample = sink.emit("try-pull-sample", 60 * Gst.SECOND)
            if sample is None:
                msg = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
                raise SystemExit("no frame %d: %s" % (i, msg.parse_error() if msg else "?"))
            b = sample.get_buffer()
            ok, m = b.map(Gst.MapFlags.READ)
            got.append(np.frombuffer(m.data, np.uint8)[:W * H].reshape(H, W).copy())
            b.unmap(m)
        out.append(got)
    pipe.set_state(Gst.State.NULL)
    return out


def over_blur(clip, frames, W, H):
    """the mean share of the frame blurred outside every face box (of the
    pixels the filter changes)"""
    shares = []
    for (img, truth), (priv, full) in zip(clip, frames):
        changed = full != img
        faces = np.zeros((H, W), bool)
        for _, (x, y, w, h) in truth:
            faces[int(max(0, y)):int(min(H, y + h)), int(max(0, x)):int(min(W, x + w))] = True
        blurred = (priv == full) & changed & ~faces
        shares.append(blurred.sum() / max(1, changed.sum()))
    return 100.0 * float(np.mean(shares))


def exposed_frames(clip, frames, W, H):
    exposed, total = [], 0
    for f, ((img, truth), (priv, full)) in enumerate(zip(clip, frames)):
        for key, (x, y, w, h) in truth:
            total += 1
            x0, y0 = int(max(0, x + 0.1 * w)), int(max(0, y + 0.1 * h))
            x1, y1 = int(min(W, x + 0.9 * w)), int(min(H, y + 0.9 * h))
            changed = full[y0:y1, x0:x1] != img[y0:y1, x0:x1]
            blurred = (priv[y0:y1, x0:x1] == full[y0:y1, x0:x1]) & changed
            share = blurred.sum() / max(1, changed.sum())
            if share < 0.9:
                exposed.append((f, key % 1000, round(float(share), 2)))
    return exposed, total


def main():
    args = [int(a) for a in sys.argv[1:5]]
    W, H, N, seed = args if len(args) == 4 else (640, 360, 90, 3)
    Gst.init(None)
    for name in ("vjdetect", "roitrack", "satfilter"):
        if not Gst.ElementFactory.find(name):
            print("element %s not found (GST_PLUGIN_PATH?)" % name)
            return 1
    clip = list(make_clip(W, H, N, seed, turn=(TURN / 2, TURN)))
    alone, total = exposed_frames(clip, blur_through("vjdetect post-messages=false", clip, W, H),
                                  W, H)
    full = os.environ.get("FV_PRIVACY_CHAIN") or (
        "vjdetect angles=%s post-messages=false ! roitrack delay=%d post-messages=false"
        % (ANGLES, DELAY))
    out = blur_through(full, clip, W, H)
    tracked, _ = exposed_frames(clip, out, W, H)
    over = over_blur(clip, out, W, H)
    print("%dx%d, %d frames, seed %d: %d face-frames; vjdetect alone exposes %d, "
          "%s ! satfilter exposes %d, blurs %.1f%% of the frame outside the faces"
          % (W, H, N, seed, total, len(alone), full, len(tracked), over))
    for f, key, share in tracked:
        print("  exposed: frame %d, face %d, %.0f%% of its inner box blurred" % (f, key, 100 * share))
    if total < N // 2:
        print("FAIL: the clip holds too few face-frames (%d)" % total)
        return 1
    if not alone:
        print("FAIL: the detector alone exposes nothing: the clip tests nothing")
        return 1
    if tracked:
        print("FAIL: %d face-frames left the privacy pipeline unblurred" % len(tracked))
        return 1
    if over > MAX_OVER_BLUR:
        print("FAIL: %.1f%% of the frame blurred outside the faces (at most %.0f%%)"
              % (over, MAX_OVER_BLUR))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
