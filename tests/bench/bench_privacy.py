#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""How often the privacy filter lets a face through: synthetic clips with
ground truth, made from the faces in tests/data, through each detector and
tracker setting; not run by CI (docs/privacy.md has the results).

The clip (W x H, FRAMES frames at 25 fps, seeded): the two photos' faces
(the astronaut and Grace Hopper) cut out with a margin and pasted on the
landscape photo (no face), each entering from an edge, moving along a
wobbling path, growing and shrinking (scale 0.6 to 1.5), turning in the
image plane (up to +-30 degrees), crossing a grey occluder bar (hiding up
to 40% of the face), under lighting that changes (x0.6 to x1.2), blurred
on some frames, then leaving. The ground truth of each face-frame is the
face's box (the photo's OpenCV box, turned and scaled as pasted).

A face-frame is **exposed** when less than 90% of the face's inner box
(the middle 80% of its width and height) lies inside the regions a
`satfilter roi-type=face` downstream would blur (the frame's face ROI
metas, whole-frame boxes included). Also measured: the longest run of
exposed frames of one face, **over-blur** (blurred area outside every face
box, % of the frame, mean over frames), **id switches** (a face covered by
a tracked box whose id differs from the one that covered it last), and the
frames per second of the whole pipeline (decode-free: frames from appsrc).

    GST_PLUGIN_PATH=build/gst tests/bench/bench_privacy.py [W H FRAMES SEED] [--plot FILE.svg]
"""
import os
import sys
import time

import numpy as np
from scipy import ndimage

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstVideo  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "common"))
from fvpnm import read_pgm  # noqa: E402
DATA = os.path.join(ROOT, "tests", "data", "faces")
# OpenCV 4.6's boxes on the photos (tests/data/faces/expected-frontalface-default.txt)
FACES = [("astronaut.pgm", (177, 66, 95, 95)), ("grace_hopper_matplotlib.pgm", (155, 105, 222, 222))]


def sprites():
    out = []
    for name, box in FACES:
        img = read_pgm(os.path.join(DATA, name)).astype(np.float32)
        x, y, w, h = box
        m = int(0.35 * w)   # hair, chin and background around the face
        x0, y0 = max(0, x - m), max(0, y - m)
        x1, y1 = min(img.shape[1], x + w + m), min(img.shape[0], y + h + m)
        out.append((img[y0:y1, x0:x1], (x - x0, y - y0, w, h)))
    return out


def make_clip(W, H, frames, seed):
    rng = np.random.default_rng(seed)
    bg = read_pgm(os.path.join(DATA, "640px-IceBlockNearJoekullsarlon.pgm")).astype(np.float32)
    bg = ndimage.zoom(bg, (H / bg.shape[0], W / bg.shape[1]), order=1)[:H, :W]
    faces = sprites()
    plans = []
    for k in range(len(faces) * 2):   # each face twice, at different times
        spr, box = faces[k % len(faces)]
        start = int(rng.integers(0, frames // 3)) + (k // len(faces)) * frames // 3
        life = int(rng.integers(frames // 4, frames // 2))
        side = int(rng.integers(0, 2))
        plans.append(dict(spr=spr, box=box, start=start, end=min(frames, start + life),
                          x0=-0.2 * W if side == 0 else 1.2 * W, x1=rng.uniform(0.2, 0.8) * W,
                          y=rng.uniform(0.25, 0.6) * H, wob=rng.uniform(10, 40),
                          s0=rng.uniform(0.6, 1.0), s1=rng.uniform(1.0, 1.5),
                          turn=rng.uniform(10, 30), ph=rng.uniform(0, 6.28)))
    bar_speed = W / (frames * 0.5)
    for f in range(frames):
        img = bg.copy()
        truth = []
        for p in plans:
            if not (p["start"] <= f < p["end"]):
                continue
            t = (f - p["start"]) / max(1, p["end"] - p["start"] - 1)
            cx = p["x0"] + (p["x1"] - p["x0"]) * min(1.0, 2 * t) + p["wob"] * np.sin(6 * t + p["ph"])
            if t > 0.7:   # leaving by the other edge
                cx += (t - 0.7) / 0.3 * W * 0.8 * (1 if p["x0"] < 0 else -1)
            cy = p["y"] + p["wob"] * np.cos(5 * t + p["ph"])
            scale = p["s0"] + (p["s1"] - p["s0"]) * (0.5 - 0.5 * np.cos(3 * t + p["ph"]))
            angle = p["turn"] * np.sin(4 * t + p["ph"])
            spr = ndimage.zoom(p["spr"], scale * H / 720.0 * 1.3, order=1)
            mask = np.ones_like(spr)
            spr = ndimage.rotate(spr, angle, reshape=True, order=1)
            mask = ndimage.rotate(mask, angle, reshape=True, order=1) > 0.5
            sh, sw = spr.shape
            ox, oy = int(round(cx - sw / 2)), int(round(cy - sh / 2))
            # the face box, scaled and turned about the sprite's centre
            fx, fy, fw, fh = p["box"]
            k = scale * H / 720.0 * 1.3
            src_h, src_w = p["spr"].shape
            corners = []
            a = np.deg2rad(angle)
            for (px, py) in ((fx, fy), (fx + fw, fy), (fx, fy + fh), (fx + fw, fy + fh)):
                dx, dy = (px - src_w / 2) * k, (py - src_h / 2) * k
                # ndimage.rotate turns counter-clockwise as displayed
                rx = dx * np.cos(a) + dy * np.sin(a)
                ry = -dx * np.sin(a) + dy * np.cos(a)
                corners.append((ox + sw / 2 + rx, oy + sh / 2 + ry))
            xs, ys = [c[0] for c in corners], [c[1] for c in corners]
            gt = (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
            # paste where it falls inside the frame
            x0, y0 = max(0, ox), max(0, oy)
            x1, y1 = min(W, ox + sw), min(H, oy + sh)
            if x1 <= x0 or y1 <= y0:
                continue
            sub = spr[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
            msub = mask[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
            region = img[y0:y1, x0:x1]
            region[msub] = sub[msub]
            # a face counts while its inner box is at least half in the frame
            ix0, iy0 = gt[0] + 0.1 * gt[2], gt[1] + 0.1 * gt[3]
            ix1, iy1 = gt[0] + 0.9 * gt[2], gt[1] + 0.9 * gt[3]
            inside = max(0, min(W, ix1) - max(0, ix0)) * max(0, min(H, iy1) - max(0, iy0))
            if inside >= 0.5 * (ix1 - ix0) * (iy1 - iy0):
                truth.append((id(p), gt))
        # the occluder: a grey bar sweeping across, 40% of a face wide
        bx = int((f * bar_speed) % (W + 200)) - 100
        img[:, max(0, bx):max(0, bx + int(0.06 * W))] = 128
        light = 0.9 + 0.3 * np.sin(f / frames * 12.0)
        img = img * light
        if f % 17 in (5, 6):   # motion blur now and then
            img = ndimage.uniform_filter1d(img, 7, axis=1)
        yield np.clip(img, 0, 255).astype(np.uint8), truth


def run(desc, clip, W, H):
    """boxes a satfilter roi-type=face would blur, per frame, ids where
    tracked, and the wall time"""
    pipe = Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=%d,height=%d,"
        "framerate=25/1 ! %s ! appsink name=sink sync=false" % (W, H, desc))
    src, sink = pipe.get_by_name("src"), pipe.get_by_name("sink")
    out = []
    pipe.set_state(Gst.State.PLAYING)
    t0 = time.monotonic()
    for i, (img, _) in enumerate(clip):
        buf = Gst.Buffer.new_wrapped(img.tobytes())
        buf.pts = i * Gst.SECOND // 25
        buf.duration = Gst.SECOND // 25
        src.emit("push-buffer", buf)
        sample = sink.emit("pull-sample")
        out.append(regions(sample.get_buffer()))
    secs = time.monotonic() - t0
    src.emit("end-of-stream")
    pipe.set_state(Gst.State.NULL)
    return out, secs


def regions(buf):
    api = GstVideo.VideoRegionOfInterestMeta.get_info().api
    left, boxes, i = buf.get_n_meta(api), [], 0
    while left > 0 and i < 1 << 12:
        m = GstVideo.buffer_get_video_region_of_interest_meta_id(buf, i)
        i += 1
        if m is None:
            continue
        left -= 1
        if GLibQuark(m.roi_type) != "face":
            continue
        tid = None
        s = m.get_param("track")
        if s is not None and s.has_field("id"):
            tid = s.get_value("id")
        boxes.append(((m.x, m.y, m.w, m.h), tid))
    return boxes


def GLibQuark(q):
    from gi.repository import GLib
    return GLib.quark_to_string(q)


def measure(clip_truth, got, W, H):
    exposed = total = 0
    runs, run_len, longest, switches, last_id = {}, {}, 0, 0, {}
    over = 0.0
    for truth, boxes in zip(clip_truth, got):
        mask = np.zeros((H, W), bool)
        for (x, y, w, h), _ in boxes:
            mask[max(0, y):y + h, max(0, x):x + w] = True
        faces = np.zeros((H, W), bool)
        for key, (x, y, w, h) in truth:
            total += 1
            x0, y0 = int(max(0, x + 0.1 * w)), int(max(0, y + 0.1 * h))
            x1, y1 = int(min(W, x + 0.9 * w)), int(min(H, y + 0.9 * h))
            inner = mask[y0:y1, x0:x1]
            hit = inner.mean() if inner.size else 1.0
            faces[int(max(0, y)):int(min(H, y + h)), int(max(0, x)):int(min(W, x + w))] = True
            if hit < 0.9:
                exposed += 1
                run_len[key] = run_len.get(key, 0) + 1
                longest = max(longest, run_len[key])
            else:
                run_len[key] = 0
            # the id of the tracked box holding the face's centre
            cx, cy = x + w / 2, y + h / 2
            ids = [t for (bx, by, bw, bh), t in boxes
                   if t is not None and bx <= cx <= bx + bw and by <= cy <= by + bh]
            if ids:
                if key in last_id and last_id[key] not in ids:
                    switches += 1
                last_id[key] = ids[0]
        over += (mask & ~faces).sum() / (W * H)
    return dict(exposed=100.0 * exposed / max(1, total), longest=longest,
                over=100.0 * over / max(1, len(got)), switches=switches, faces=total)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    plot = sys.argv[sys.argv.index("--plot") + 1] if "--plot" in sys.argv else None
    if plot in args:
        args.remove(plot)
    W, H = (int(args[0]), int(args[1])) if len(args) > 1 else (1280, 720)
    frames = int(args[2]) if len(args) > 2 else 300
    seed = int(args[3]) if len(args) > 3 else 7
    Gst.init(None)
    clip = list(make_clip(W, H, frames, seed))
    truth = [t for _, t in clip]
    configs = []
    if Gst.ElementFactory.find("facedetect"):
        configs.append(("facedetect (gst-plugins-bad)", "videoconvert ! facedetect "
                        "display=false ! videoconvert ! video/x-raw,format=GRAY8"))
    configs += [
        ("vjdetect", "vjdetect post-messages=false"),
        ("vjdetect ! roitrack", "vjdetect post-messages=false ! roitrack post-messages=false"),
        ("vjdetect angles=-30,-15,0,15,30 ! roitrack",
         "vjdetect angles=-30,-15,0,15,30 post-messages=false ! roitrack post-messages=false"),
        ("vjdetect interval=2 ! roitrack",
         "vjdetect interval=2 post-messages=false ! roitrack post-messages=false"),
        ("vjdetect interval=3 ! roitrack",
         "vjdetect interval=3 post-messages=false ! roitrack post-messages=false"),
        ("vjdetect angles=-20,0,20 ! roitrack",
         "vjdetect angles=-20,0,20 post-messages=false ! roitrack post-messages=false"),
        ("vjdetect angles=-20,0,20 interval=2 ! roitrack",
         "vjdetect angles=-20,0,20 interval=2 post-messages=false ! roitrack post-messages=false"),
    ]
    only = os.environ.get("FV_BENCH_ONLY")   # a substring: those configurations alone
    if only:
        configs = [c for c in configs if only in c[0]]
    print("clip: %dx%d, %d frames, seed %d, %d face-frames" % (W, H, frames, seed,
                                                               sum(len(t) for t in truth)))
    print("| pipeline | exposed face-frames | longest exposed run | over-blur | id switches "
          "| fps (this machine) |")
    print("|---|---|---|---|---|---|")
    rows = []
    for name, desc in configs:
        got, secs = run(desc, clip, W, H)
        m = measure(truth, got, W, H)
        tracked = "roitrack" in desc
        rows.append((name, m, frames / secs))
        print("| `%s` | %.1f%% | %d | %.1f%% | %s | %.1f |" % (
            name, m["exposed"], m["longest"], m["over"], m["switches"] if tracked else "—",
            frames / secs), flush=True)
    if plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 3.5))
        names = [r[0].replace(" ! ", "\n! ") for r in rows]
        ax.barh(range(len(rows)), [r[1]["exposed"] for r in rows], color="#c44")
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels(names, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("exposed face-frames, % (lower is better)")
        ax.set_title("Faces let through, synthetic %dx%d clip (%d face-frames)"
                     % (W, H, sum(len(t) for t in truth)), fontsize=9)
        fig.tight_layout()
        fig.savefig(plot)
        print("plot:", plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
