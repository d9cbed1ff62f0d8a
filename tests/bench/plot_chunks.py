#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Time per frame against frame size, one GPU against two (and four), from
bench_chunks tables (docs/data/chunks-*): an SVG, no plotting library.

    tests/bench/plot_chunks.py TABLE docs/chunks.svg [TABLE4]
        TABLE: a bench_chunks table over two devices; TABLE4: one over four
"""
import math
import sys


def rows(path):
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        # bench_chunks' rows: 8 cells before 2026-11-27, 11 since (the
        # copy bound, the profile and the chosen way added)
        if len(cells) in (8, 11) and cells[1].endswith("²"):
            yield cells[0], int(cells[1][:-1]), float(cells[2]), float(cells[6])


def main(src, dst, src4=None):
    data = {}
    for kernel, side, one, two in rows(src):
        data.setdefault(kernel, []).append([side, one, two])
    lines = ((1, "", "1 GPU"), (2, "6,4", "2 GPUs"))
    if src4:   # each kernel's four-GPU time, where both tables have its size
        four = {(k, s): t for k, s, _, t in rows(src4)}
        for kernel, pts in data.items():
            for p in pts:
                p.append(four.get((kernel, p[0]), p[2]))
        lines += ((3, "2,3", "4 GPUs"),)
    W, H, L, B, T, R = 760, 420, 70, 50, 30, 190
    sides = sorted({p[0] for v in data.values() for p in v})
    times = [t for v in data.values() for p in v for t in p[1:]]
    x0, x1 = math.log2(sides[0] ** 2), math.log2(sides[-1] ** 2)
    y0, y1 = math.floor(math.log10(min(times))), math.ceil(math.log10(max(times)))
    X = lambda s: L + (math.log2(s * s) - x0) / (x1 - x0) * (W - L - R)
    Y = lambda t: H - B - (math.log10(t) - y0) / (y1 - y0) * (H - B - T)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>']
    for e in range(y0, y1 + 1):
        y = Y(10 ** e)
        out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">{10 ** e:g} ms</text>')
    for s in sides:
        x = X(s)
        out.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{H - B}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{H - B + 16}" text-anchor="middle">{s}²</text>')
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 10}" text-anchor="middle">'
               'GRAY8 frame (log scale of pixels)</text>')
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    for k, (kernel, pts) in enumerate(sorted(data.items())):
        c = colours[k % len(colours)]
        for col, dash, label in lines:
            path = " ".join(f"{'M' if i == 0 else 'L'}{X(p[0]):.1f},{Y(p[col]):.1f}"
                            for i, p in enumerate(pts))
            out.append(f'<path d="{path}" fill="none" stroke="{c}" stroke-width="2" '
                       f'stroke-dasharray="{dash}"/>')
            ly = T + 10 + (len(lines) * k + col - 1) * 18
            out.append(f'<line x1="{W - R + 12}" y1="{ly}" x2="{W - R + 40}" y2="{ly}" '
                       f'stroke="{c}" stroke-width="2" stroke-dasharray="{dash}"/>')
            out.append(f'<text x="{W - R + 46}" y="{ly + 4}">{kernel}, {label}</text>')
    out.append("</svg>")
    open(dst, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
