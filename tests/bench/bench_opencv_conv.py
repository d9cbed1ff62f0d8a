#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""OpenCV's filter2D on the frames and kernels of bench_conv_cpu (it
switches to a DFT itself for large kernels), and GaussianBlur and filter2D
on the Gaussian of sigma 3 (19 x 19) of bench_conv_cpu's gauss3 rows. Prints
"opencv SIZE kK filter2D MS" and "opencv SIZE gauss3 FUNCTION MS"."""
import sys
import time

import cv2
import numpy as np

sizes = [("1080p", 1920, 1080), ("4K", 3840, 2160), ("8K", 7680, 4320)]
gsizes = [("720p", 1280, 720), ("1080p", 1920, 1080), ("4K", 3840, 2160)]
if "--quick" in sys.argv:
    sizes = sizes[:1]
    gsizes = gsizes[:2]


def median_ms(fn):
    fn()
    t = []
    for _ in range(5):
        a = time.perf_counter()
        fn()
        t.append((time.perf_counter() - a) * 1e3)
    return sorted(t)[2]


def frame(w, h):
    return (np.arange(w * h, dtype=np.uint64) * 2654435761 >> 24).astype(np.uint8).reshape(h, w)


g = np.exp(-((np.arange(19) - 9.0) ** 2) / 18.0)
gauss = np.outer(g, g).astype(np.float32)
gauss /= gauss.sum()
for name, w, h in gsizes:
    img = frame(w, h)
    ms = median_ms(lambda: cv2.GaussianBlur(img, (19, 19), 3, borderType=cv2.BORDER_REFLECT_101))
    print(f"opencv {name} gauss3 GaussianBlur {ms:.3f}", flush=True)
    ms = median_ms(lambda: cv2.filter2D(img, -1, gauss, borderType=cv2.BORDER_REFLECT_101))
    print(f"opencv {name} gauss3 filter2D {ms:.3f}", flush=True)
if "--gauss" in sys.argv:
    sizes = []
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
