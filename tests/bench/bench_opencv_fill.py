#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""OpenCV's reverse flood fill, the seed paper's baseline: pad the frame with
one background pixel, floodFill the background from the corner, invert, and
add the contours. Reads the PGM frames bench_fill_cpu wrote; prints
"opencv SIZE KIND fill MS" (median) and checks the result against
fastvision's definition (no pixel may differ). Then the same fill measured
as autofill measure=both does, with connectedComponentsWithStats (area,
box, centroid: fewer features than autofill's) on the parts (the filled
pixels, 8-connected) and on the holes (filled and not contour,
4-connected): "opencv SIZE KIND fill+ccstats MS"."""
import glob
import os
import sys
import time

import cv2
import numpy as np


def reverse_fill(img, thr=127):
    contour = (img > thr).astype(np.uint8) * 255
    pad = cv2.copyMakeBorder(contour, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    mask = np.zeros((pad.shape[0] + 2, pad.shape[1] + 2), np.uint8)
    cv2.floodFill(pad, mask, (0, 0), 255, flags=4)
    holes = cv2.bitwise_not(pad)[1:-1, 1:-1]
    return cv2.bitwise_or(holes, contour)


def measured(img):
    """The fill, and its parts and holes labelled with statistics."""
    filled = reverse_fill(img)
    holes = cv2.bitwise_and(filled, cv2.bitwise_not((img > 127).astype(np.uint8) * 255))
    cv2.connectedComponentsWithStats(filled, connectivity=8)
    cv2.connectedComponentsWithStats(holes, connectivity=4)


def median_ms(fn, img, reps):
    fn(img)   # warm
    t = []
    for _ in range(reps):
        a = time.perf_counter()
        fn(img)
        t.append((time.perf_counter() - a) * 1e3)
    return sorted(t)[len(t) // 2]


d = sys.argv[1]
for path in sorted(glob.glob(os.path.join(d, "*.pgm"))):
    size, kind = os.path.basename(path)[:-4].split("-")
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    reps = 21 if img.shape[0] <= 1080 else (9 if img.shape[0] <= 2160 else 5)
    print(f"opencv {size} {kind} fill {median_ms(reverse_fill, img, reps):.3f}", flush=True)
    print(f"opencv {size} {kind} fill+ccstats {median_ms(measured, img, reps):.3f}", flush=True)
