#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""OpenCV peers of bench_sat_cpu, measured in the same run (python3-opencv):
cv2.integral and cv2.blur (normalized box, BORDER_REFLECT_101), median of runs.
Prints lines "opencv SIZE FORMAT OP MS"."""
import sys
import time

import cv2
import numpy as np

sizes = [("1080p", 1920, 1080), ("4K", 3840, 2160), ("8K", 7680, 4320)]
if "--quick" in sys.argv:
    sizes = sizes[:1]


def median_ms(fn, reps):
    fn()
    t = []
    for _ in range(reps):
        a = time.perf_counter()
        fn()
        t.append((time.perf_counter() - a) * 1e3)
    return sorted(t)[len(t) // 2]


for i, (name, w, h) in enumerate(sizes):
    reps = 15 if i == 0 else 5
    for ch, fmt in ((1, "GRAY8"), (4, "RGBA")):
        img = (np.arange(w * h * ch, dtype=np.uint64) * 2654435761 >> 24).astype(np.uint8)
        img = img.reshape(h, w, ch) if ch > 1 else img.reshape(h, w)
        if ch == 1:
            print(f"opencv {name} {fmt} integral {median_ms(lambda: cv2.integral(img, sdepth=cv2.CV_32S), reps):.3f}")
        for r in (15, 100):
            k = 2 * r + 1
            print(f"opencv {name} {fmt} blur_r{r} {median_ms(lambda: cv2.blur(img, (k, k)), reps):.3f}")
    sys.stdout.flush()
print(f"# opencv {cv2.__version__}, threads {cv2.getNumThreads()}", file=sys.stderr)
