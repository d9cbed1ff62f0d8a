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
    tests/bench/bench_privacy.py --plot-table PRINTED_TABLE.txt FILE.svg
    GST_PLUGIN_PATH=build/gst tests/bench/bench_privacy.py --sample CHAIN...
    GST_PLUGIN_PATH=build/gst tests/bench/bench_privacy.py --replay DETECTOR "SETTINGS;..." [W H FRAMES SEED]

FV_BENCH_CHAINS="CHAIN;CHAIN..." measures those chains (the elements after
the source, before satfilter) instead of the built-in list. --sample runs
each chain on tests/data/sample-face.webm, the clip pipelines/demo.sh
shows, and prints the mean share of the frame the regions blur and the
frames more than half blurred. --replay records what DETECTOR (a chain
ending in a detector) finds on the clip once, then runs the tracker
(tests/bench/bench_track, kernels/track) with each roitrack setting
("key=value ..."; "" the defaults) on those detections: the same boxes
roitrack gives, without detecting again.
"""
import os
import sys
import time

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstVideo  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "common"))
from fvclip import make_clip, measure  # noqa: E402
# the face metas of a buffer, as the Python embedding app reads them
sys.path.insert(0, os.path.join(ROOT, "pipelines", "apps"))
from privacy_app import face_metas  # noqa: E402


def run(desc, clip, W, H):
    """boxes a satfilter roi-type=face would blur, per frame, ids where
    tracked, and the wall time"""
    pipe = Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=%d,height=%d,"
        "framerate=25/1 ! %s ! appsink name=sink sync=false" % (W, H, desc))
    src, sink = pipe.get_by_name("src"), pipe.get_by_name("sink")
    src.set_property("max-bytes", 0)   # the whole clip in (roitrack delay holds frames back)
    out = []
    pipe.set_state(Gst.State.PLAYING)
    t0 = time.monotonic()
    for i, (img, _) in enumerate(clip):
        buf = Gst.Buffer.new_wrapped(img.tobytes())
        buf.pts = i * Gst.SECOND // 25
        buf.duration = Gst.SECOND // 25
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    for i in range(len(clip)):
        sample = sink.emit("try-pull-sample", 600 * Gst.SECOND)
        if sample is None:
            raise SystemExit("%s: no frame %d" % (desc, i))
        out.append(regions(sample.get_buffer()))
    secs = time.monotonic() - t0
    pipe.set_state(Gst.State.NULL)
    return out, secs


def regions(buf):
    boxes = []
    for m in face_metas(buf):
        tid = None
        s = m.get_param("track")
        if s is not None and s.has_field("id"):
            tid = s.get_value("id")
        boxes.append(((m.x, m.y, m.w, m.h), tid))
    return boxes


def draw(path, rows, W, H, faces):
    """a bar a pipeline: (name, % exposed)"""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(rows) + 1.5))
    ax.barh(range(len(rows)), [r[1] for r in rows], color="#c44")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r[0].replace(" ! ", "\n! ") for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("exposed face-frames, % (lower is better)")
    ax.set_title("Faces let through, synthetic %dx%d clip (%d face-frames)" % (W, H, faces),
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    print("plot:", path)


def plot_table(table, path):
    """--plot-table OUT.txt FILE.svg: the plot of a table this script printed"""
    rows, W, H, faces = [], 0, 0, 0
    for line in open(table):
        if line.startswith("clip: "):
            size, _, _, faces = line[6:].split(", ")
            W, H = map(int, size.split("x"))
            faces = int(faces.split()[0])
        elif line.startswith("| `"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows.append((cells[0].strip("`"), float(cells[1].rstrip("%"))))
    draw(path, rows, W, H, faces)
    return 0


def blurred_share(buf, W, H):
    """the share of the frame under the buffer's face regions (their union)"""
    import numpy as np
    mask = np.zeros((H, W), bool)
    for m in face_metas(buf):
        mask[m.y:m.y + m.h, m.x:m.x + m.w] = True
    return mask.mean()


def sample(chains):
    """--sample: mean blurred share and frames more than half blurred on the
    sample clip"""
    clip = os.path.join(ROOT, "tests", "data", "sample-face.webm")
    print("| chain on sample-face.webm | mean blurred share | frames more than half blurred |")
    print("|---|---|---|")
    for chain in chains:
        pipe = Gst.parse_launch(
            "filesrc location=%s ! decodebin ! videoconvert ! video/x-raw,format=I420 ! %s ! "
            "appsink name=sink sync=false" % (clip, chain))
        sink = pipe.get_by_name("sink")
        pipe.set_state(Gst.State.PLAYING)
        shares = []
        while True:
            s = sink.emit("try-pull-sample", 600 * Gst.SECOND)
            if s is None:
                break
            st = s.get_caps().get_structure(0)
            shares.append(blurred_share(s.get_buffer(), st.get_value("width"),
                                        st.get_value("height")))
        pipe.set_state(Gst.State.NULL)
        half = sum(1 for x in shares if x > 0.5)
        print("| `%s` | %.1f%% | %d of %d |" % (chain, 100 * sum(shares) / max(1, len(shares)),
                                               half, len(shares)), flush=True)
    return 0


def record(desc, clip, W, H):
    """the detections DESC puts on each frame: (searched, [(x, y, w, h,
    neighbors, angle)])"""
    pipe = Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=%d,height=%d,"
        "framerate=25/1 ! %s ! appsink name=sink sync=false" % (W, H, desc))
    src, sink = pipe.get_by_name("src"), pipe.get_by_name("sink")
    src.set_property("max-bytes", 0)
    pipe.set_state(Gst.State.PLAYING)
    for i, (img, _) in enumerate(clip):
        buf = Gst.Buffer.new_wrapped(img.tobytes())
        buf.pts = i * Gst.SECOND // 25
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    frames = []
    for i in range(len(clip)):
        buf = sink.emit("try-pull-sample", 3600 * Gst.SECOND).get_buffer()
        mark = buf.get_custom_meta("FvDetectionMeta")
        searched = mark.get_structure().get_value("face") if mark else -1
        dets = []
        for m in face_metas(buf):
            p = m.get_param("detection")
            nb = p.get_value("neighbors") if p is not None and p.has_field("neighbors") else -1
            an = p.get_value("angle") if p is not None and p.has_field("angle") else 0.0
            dets.append((m.x, m.y, m.w, m.h, nb, an))
        frames.append((searched, dets))
    pipe.set_state(Gst.State.NULL)
    return frames


def replay(frames, settings, W, H):
    """the boxes the tracker gives (tests/bench/bench_track) for SETTINGS
    ("key=value ..." of roitrack's properties) on recorded detections"""
    import subprocess
    tool = os.environ.get("FV_BENCH_TRACK", os.path.join(ROOT, "build", "tests", "bench_track"))
    lines = []
    for n, (searched, dets) in enumerate(frames):
        lines.append("frame %d %d %d" % (n, searched, len(dets)))
        lines += ["%d %d %d %d %d %g" % d for d in dets]
    out = subprocess.run([tool, str(W), str(H)] + settings.split(), input="\n".join(lines),
                         capture_output=True, text=True, check=True).stdout.split("\n")
    got, i = [], 0
    while i < len(out) and out[i].startswith("frame"):
        _, _, whole, n = out[i].split()
        boxes = [((0, 0, W, H), 0)] if int(whole) else []
        for line in out[i + 1:i + 1 + int(n)]:
            x, y, w, h, tid, _, _ = map(int, line.split())
            boxes.append(((x, y, w, h), tid))
        got.append(boxes)
        i += 1 + int(n)
    return got


def replay_main(detector, settings, W, H, frames_n, seed):
    """--replay: one detector run recorded, then each roitrack setting on it"""
    clip = list(make_clip(W, H, frames_n, seed))
    truth = [t for _, t in clip]
    t0 = time.monotonic()
    frames = record(detector, clip, W, H)
    print("clip: %dx%d, %d frames, seed %d, %d face-frames; `%s` recorded in %.0f s" % (
        W, H, frames_n, seed, sum(len(t) for t in truth), detector, time.monotonic() - t0))
    print("| roitrack settings | exposed face-frames | longest exposed run | over-blur | "
          "id switches |")
    print("|---|---|---|---|---|")
    for s in settings:
        m = measure(truth, replay(frames, s, W, H), W, H)
        print("| `%s` | %.1f%% | %d | %.1f%% | %d |" % (s or "(defaults)", m["exposed"],
                                                        m["longest"], m["over"], m["switches"]),
              flush=True)
    return 0


def main():
    if "--replay" in sys.argv:
        i = sys.argv.index("--replay")
        Gst.init(None)
        args = [int(a) for a in sys.argv[i + 3:i + 7]]
        W, H, N, seed = args if len(args) == 4 else (1280, 720, 300, 7)
        return replay_main(sys.argv[i + 1], sys.argv[i + 2].split(";"), W, H, N, seed)
    if "--sample" in sys.argv:
        Gst.init(None)
        return sample([a for a in sys.argv[1:] if a != "--sample"])
    if "--plot-table" in sys.argv:
        i = sys.argv.index("--plot-table")
        return plot_table(sys.argv[i + 1], sys.argv[i + 2])
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
        ("vjdetect ! roitrack delay=3",
         "vjdetect post-messages=false ! roitrack delay=3 post-messages=false"),
        ("vjdetect interval=2 ! roitrack delay=3",
         "vjdetect interval=2 post-messages=false ! roitrack delay=3 post-messages=false"),
        ("vjdetect angles=-20,0,20 interval=2 ! roitrack delay=3",
         "vjdetect angles=-20,0,20 interval=2 post-messages=false ! roitrack delay=3 "
         "post-messages=false"),
        ("vjdetect angles=-30,-15,0,15,30 ! roitrack delay=3",
         "vjdetect angles=-30,-15,0,15,30 post-messages=false ! roitrack delay=3 "
         "post-messages=false"),
    ]
    if os.environ.get("FV_BENCH_CHAINS"):
        configs = [(c.strip(), c.strip()) for c in os.environ["FV_BENCH_CHAINS"].split(";")
                   if c.strip()]
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
        draw(plot, [(r[0], r[1]["exposed"]) for r in rows], W, H, sum(len(t) for t in truth))
    return 0


if __name__ == "__main__":
    sys.exit(main())
