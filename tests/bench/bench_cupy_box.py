#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Peer for the GPU box filter: cupyx.scipy.ndimage.uniform_filter on device
arrays (GRAY8 and RGBA, radius r = window 2r+1, per-channel for RGBA), timed
with CUDA events, median of 20 after warm-up. Run beside bench_sat_cuda on
the GPU host:  python3 tests/bench/bench_cupy_box.py"""
import cupy as cp
import cupyx.scipy.ndimage as ndi


def median_ms(fn, reps=20):
    fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    times.sort()
    return times[len(times) // 2]


print("| size | op | cupyx uniform_filter ms |")
print("|---|---|---|")
for name, w, h in (("4K", 3840, 2160), ("8K", 7680, 4320)):
    for ch in (1, 4):
        shape = (h, w) if ch == 1 else (h, w, ch)
        img = (cp.arange(w * h * ch, dtype=cp.uint32) * 2654435761 >> 24).astype(cp.uint8)
        img = img.reshape(shape)
        out = cp.empty_like(img)
        for r in (15, 100):
            size = (2 * r + 1, 2 * r + 1) if ch == 1 else (2 * r + 1, 2 * r + 1, 1)
            ms = median_ms(lambda: ndi.uniform_filter(img, size=size, output=out, mode="reflect"))
            print("| %s | box mean r=%d %s | %.4f |" % (name, r, "GRAY8" if ch == 1 else "RGBA", ms))
