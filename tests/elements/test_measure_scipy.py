#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""autofill measure=true against scipy: on the binary shapes of tests/data
and their negatives, both connectivities, the "autofill" message's regions
(count, total area, each box and area, in order) equal scipy.ndimage.label
on the filled-minus-input pixels (the output's filled pixels that were
background), whose labels follow raster order of the first pixel too.

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
        f"framerate=1/1 ! autofill name=f backend={backend} measure=true connectivity={conn} "
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
    return out, s.get_value("count"), s.get_value("area"), regions


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
                out, count, area, regions = run(img, conn, backend)
                n, total, want = reference(img, out, conn)
                label = f"{name}{' negative' if neg else ''} conn {conn}"
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
