#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the chunk runner's copies can reach: a frame on GPU 0, chunks pulled
to (and pushed back from) the other GPUs by their own streams, as
fv_chunk_run.cu stages them (cudaMemcpy2DAsync, cudaMemcpyDefault, over
peer access). Prints GB/s for chunk sizes, 1D against 2D copies, one
stream against three a GPU, one GPU against all of them at once, one way
and both ways. Needs cupy and two or more GPUs; never run by CI.

  python3 tests/bench/bench_peer_copies.py [--mb 4,11,24,64] [--reps 20]
"""
import argparse
import statistics
import time

import cupy as cp

rt = cp.cuda.runtime
DEFAULT = 4  # cudaMemcpyDefault


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", default="4,11,24,64")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--width", type=int, default=16384)
    a = ap.parse_args()
    n = rt.getDeviceCount()
    if n < 2:
        print("one GPU: nothing to measure")
        return
    for d in range(n):
        with cp.cuda.Device(d):
            for q in range(n):
                if q != d and rt.deviceCanAccessPeer(d, q):
                    try:
                        rt.deviceEnablePeerAccess(q)
                    except cp.cuda.runtime.CUDARuntimeError:
                        pass
    W = a.width
    sizes = [int(float(x) * (1 << 20)) for x in a.mb.split(",")]
    with cp.cuda.Device(0):
        frame = cp.zeros(max(sizes) * 3 * (n - 1) + W, dtype=cp.uint8)
        back = cp.zeros_like(frame)
    bufs, streams = {}, {}
    for d in range(1, n):
        with cp.cuda.Device(d):
            bufs[d] = [cp.zeros(max(sizes), dtype=cp.uint8) for _ in range(3)]
            streams[d] = [cp.cuda.Stream(non_blocking=True) for _ in range(3)]

    def run(size, gpus, lanes, two_d, both):
        rows = size // W
        nbytes = rows * W
        def once():
            t0 = time.perf_counter()
            k = 0
            for d in gpus:
                with cp.cuda.Device(d):
                    for l in range(lanes):
                        src = frame.data.ptr + k * nbytes
                        dst = bufs[d][l].data.ptr
                        s = streams[d][l].ptr
                        if two_d:
                            rt.memcpy2DAsync(dst, W, src, W, W, rows, DEFAULT, s)
                        else:
                            rt.memcpyAsync(dst, src, nbytes, DEFAULT, s)
                        if both:
                            out = back.data.ptr + k * nbytes
                            if two_d:
                                rt.memcpy2DAsync(out, W, dst, W, W, rows, DEFAULT, s)
                            else:
                                rt.memcpyAsync(out, dst, nbytes, DEFAULT, s)
                        k += 1
            for d in gpus:
                for l in range(lanes):
                    streams[d][l].synchronize()
            return time.perf_counter() - t0, k * nbytes * (2 if both else 1)
        once()
        ts = []
        for _ in range(a.reps):
            t, b = once()
            ts.append(t)
        t = statistics.median(ts)
        return t * 1e3, b / t / 1e9

    print("| chunk | GPUs pulling | streams a GPU | copy | way | ms | GB/s over GPU 0's links |")
    print("|---|---|---|---|---|---|---|")
    for size in sizes:
        for gpus in ([1], list(range(1, n))):
            for lanes in (1, 3):
                for two_d in (False, True):
                    for both in (False, True):
                        if len(gpus) == 1 and n == 2 and gpus != [1]:
                            continue
                        ms, gbs = run(size, gpus, lanes, two_d, both)
                        print(f"| {size / (1 << 20):.0f} MB | {len(gpus)} | {lanes} | "
                              f"{'2D' if two_d else '1D'} | {'in, then out' if both else 'in'} | "
                              f"{ms:.3f} | {gbs:.0f} |")


if __name__ == "__main__":
    main()
