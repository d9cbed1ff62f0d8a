#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""autofill measure=both against scipy: on the binary shapes of tests/data
and their negatives, both connectivities, the "autofill" message's holes
(count, total area, each box and area, in order) equal scipy.ndimage.label
on the filled-minus-input pixels (the output's filled pixels that were
background), whose labels follow raster order of the first pixel too; its
parts equal ndimage.label of the output's filled pixels in the other
connectivity; every region's centroid equals ndimage.center_of_mass, its
ellipse (major, minor, orientation) the one numpy computes from the
region's pixel coordinates, its perimeter Crofton's count written here
from the definition, within 1e-9 relative; each hole names the part that
holds its first pixel, each part counts its holes and their area.

    test_measure_scipy.py DATA_DIR [BACKEND]

Exits 77 (skipped) where PyGObject, numpy or scipy is missing."""
import os
import sys

try:
    import numpy as np
    from scipy import ndimage
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
    from fvpnm import read_pgm
except (ImportError, ValueError) as e:
    print(f"skipped: {e}")
    sys.exit(77)


def run(img, conn, backend):
    h, w = img.shape
    stride = (w + 3) // 4 * 4   # GRAY8 rows padded to 4 bytes
    padded = np.zeros((h, stride), np.uint8)
    padded[:, :w] = img
    pipe = Gst.parse_launch(
        f"appsrc name=src format=time caps=video/x-raw,format=GRAY8,width={w},height={h},"
        f"framerate=1/1 ! autofill name=f backend={backend} measure=both connectivity={conn} "
        "max-regions=1000000 ! appsink name=sink sync=false")
    pipe.set_state(Gst.State.PLAYING)
    buf = Gst.Buffer.new_wrapped(padded.tobytes())
    buf.pts = 0
    pipe.get_by_name("src").emit("push-buffer", buf)
    pipe.get_by_name("src").emit("end-of-stream")
    sample = pipe.get_by_name("sink").emit("pull-sample")
    ok, info = sample.get_buffer().map(Gst.MapFlags.READ)
    out = np.frombuffer(info.data, np.uint8).reshape(h, stride)[:, :w].copy()
    sample.get_buffer().unmap(info)
    bus = pipe.get_bus()
    msg = bus.timed_pop_filtered(5 * Gst.SECOND, Gst.MessageType.ELEMENT)
    pipe.set_state(Gst.State.NULL)
    assert msg is not None, "no autofill message"
    s = msg.get_structure()
    assert s.get_name() == "autofill"
    regions = []
    lst = s.get_value("regions")
    for r in lst:
        regions.append((r.get_value("x"), r.get_value("y"), r.get_value("width"),
                        r.get_value("height"), r.get_value("area")))
    holes = [{k: r.get_value(k) for k in FEATURES + ("part",)} for r in lst]
    parts = [{k: r.get_value(k) for k in FEATURES + ("x", "y", "width", "height", "area", "id",
                                                     "holes", "hole-area")}
             for r in s.get_value("parts")]
    return out, s.get_value("count"), s.get_value("area"), regions, holes, parts


FEATURES = ("cx", "cy", "perimeter", "major", "minor", "orientation", "circularity",
            "equivalent-diameter")


def features(mask):
    """The features of one region's pixels, from the definitions."""
    ys, xs = np.nonzero(mask)
    area = len(xs)
    cy, cx = ndimage.center_of_mass(mask)
    cov = np.cov(np.stack([xs, ys]).astype(np.float64), bias=True)
    l2, l1 = np.linalg.eigvalsh(cov)
    # the major axis, counter-clockwise as shown (y down): minus the angle in
    # image coordinates
    turn = -0.5 * np.degrees(np.arctan2(2 * cov[0, 1], cov[0, 0] - cov[1, 1]))
    turn = turn + 180 if turn <= -90 else turn
    # Crofton: pixel pairs one step apart with one in the region (outside the
    # frame is out) along rows, columns and both diagonals
    m = np.pad(mask, 1)
    cross = []
    for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
        a = m[1:-1, 1:-1]
        b = m[1 + dy:m.shape[0] - 1 + dy, 1 + dx:m.shape[1] - 1 + dx]
        c = m[1 - dy:m.shape[0] - 1 - dy, 1 - dx:m.shape[1] - 1 - dx]
        cross.append(int((a & ~b).sum() + (a & ~c).sum()))
    perim = np.pi / 8 * (cross[0] + cross[1] + (cross[2] + cross[3]) / np.sqrt(2))
    return {"cx": cx, "cy": cy, "major": 4 * np.sqrt(max(l1, 0)),
            "minor": 4 * np.sqrt(max(l2, 0)), "orientation": turn, "perimeter": perim,
            "circularity": 4 * np.pi * area / perim ** 2,
            "equivalent-diameter": np.sqrt(4 * area / np.pi)}


def close(a, b, scale=1.0):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), scale)


def same_features(got, labels, k, ref_scale):
    want = features(labels == k + 1)
    bad = []
    for f in FEATURES:
        g, w = got[f], want[f]
        # an orientation near +-90 may come out on either side
        if f == "orientation" and abs(abs(g) - 90) < 1e-6 and abs(abs(w) - 90) < 1e-6:
            continue
        # a disc's orientation is any: both 0 only when the axes are equal
        if f == "orientation" and close(want["major"], want["minor"], ref_scale):
            continue
        if not close(g, w, 90.0 if f == "orientation" else ref_scale):
            bad.append(f"{f} {g!r} want {w!r}")
    return bad


def reference(img, out, conn):
    filled = (out == 255) & (img <= 127)
    structure = np.ones((3, 3), bool) if conn == 8 else None
    labels, n = ndimage.label(filled, structure=structure)
    regions = []
    areas = ndimage.sum_labels(filled, labels, range(1, n + 1)) if n else []
    for k, sl in enumerate(ndimage.find_objects(labels)):
        ys, xs = sl
        regions.append((xs.start, ys.start, xs.stop - xs.start, ys.stop - ys.start,
                        int(areas[k])))
    return n, int(filled.sum()), regions


def check_features(img, out, conn, holes, parts):
    """The holes' and parts' features and links against the definitions."""
    bad = []
    filled = (out == 255) & (img <= 127)
    hole_labels, nh = ndimage.label(filled, structure=np.ones((3, 3), bool) if conn == 8
                                    else None)
    part_mask = out == 255
    part_labels, np_ = ndimage.label(part_mask, structure=None if conn == 8
                                     else np.ones((3, 3), bool))
    if len(parts) != np_ or len(holes) != nh:
        return [f"{len(parts)} parts, {len(holes)} holes; scipy {np_} and {nh}"]
    slices = ndimage.find_objects(part_labels)
    index_of = {p["id"]: k for k, p in enumerate(parts)}
    holes_of = [0] * np_
    hole_area = [0] * np_
    for k, h in enumerate(holes):
        bad += [f"hole {k}: {b}" for b in same_features(h, hole_labels, k, h["equivalent-diameter"])]
        ys, xs = np.nonzero(hole_labels == k + 1)
        first = part_labels[ys[0], xs[0]] - 1   # nonzero's order is raster order
        holes_of[first] += 1
        hole_area[first] += len(xs)
        if index_of.get(h["part"]) != first:
            bad.append(f"hole {k}: part id {h['part']} is part {index_of.get(h['part'])}, "
                       f"its first pixel is in part {first}")
    for k, p in enumerate(parts):
        ys, xs = slices[k]
        box = (xs.start, ys.start, xs.stop - xs.start, ys.stop - ys.start)
        area = int((part_labels == k + 1).sum())
        if (p["x"], p["y"], p["width"], p["height"], p["area"]) != box + (area,):
            bad.append(f"part {k}: box and area {(p['x'], p['y'], p['width'], p['height'], p['area'])} "
                       f"want {box + (area,)}")
        if (p["holes"], p["hole-area"]) != (holes_of[k], hole_area[k]):
            bad.append(f"part {k}: {p['holes']} holes of {p['hole-area']} px, want "
                       f"{holes_of[k]} of {hole_area[k]}")
        bad += [f"part {k}: {b}" for b in same_features(p, part_labels, k, p["equivalent-diameter"])]
    return bad


def main():
    data = sys.argv[1]
    backend = sys.argv[2] if len(sys.argv) > 2 else "cpu"
    Gst.init(None)
    failed = checks = 0
    for name in ("pic1.pgm", "pic3.pgm", "bw_text.pgm", "horse.pgm"):
        base = read_pgm(f"{data}/{name}")
        for neg in (False, True):
            img = 255 - base if neg else base
            for conn in (4, 8):
                out, count, area, regions, holes, parts = run(img, conn, backend)
                n, total, want = reference(img, out, conn)
                label = f"{name}{' negative' if neg else ''} conn {conn}"
                checks += 1
                bad = check_features(img, out, conn, holes, parts)
                for b in bad[:5]:
                    print(f"FAIL {label}: {b}")
                failed += bool(bad)
                checks += 1
                if (count, area, regions) != (n, total, want):
                    failed += 1
                    first = next((i for i, (a, b) in enumerate(zip(regions, want)) if a != b),
                                 None)
                    print(f"FAIL {label}: {count} regions {area} px, scipy {n} regions "
                          f"{total} px; first difference at {first}")
                else:
                    print(f"ok {label}: {n} regions, {total} px")
    print(f"{checks - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
