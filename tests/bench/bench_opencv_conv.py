#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""OpenCV's filter2D on the frames and kernels of bench_conv_cpu (it
switches to a DFT itself for large kernels). Prints "opencv SIZE kK filter2D MS"."""
import sys
import time

import cv2
import numpy as np

sizes = [("1080p", 1920, 1080), ("4K", 3840, 2160), ("8K", 7680, 4320)]
if "--quick" in sys.argv:
    sizes = sizes[:1]
for name, w, h in sizes:
    img = (np.arange(w * h, dtype=np.uint64) * 2654435761 >> 24).astype(np.uint8).reshape(h, w)
    for k in (7, 31, 101):
        kern = (1.0 + (np.arange(k * k) % 7) * 0.1).astype(np.float32).reshape(k, k)
        kern /= kern.sum()
        cv2.filter2D(img, -1, kern, borderType=cv2.BORDER_REFLECT_101)
        t = []
        for _ in range(5):
            a = time.perf_counter()
            cv2.filter2D(img, -1, kern, borderType=cv2.BORDER_REFLECT_101)
            t.append((time.perf_counter() - a) * 1e3)
        print(f"opencv {name} k{k} filter2D {sorted(t)[2]:.3f}", flush=True)
