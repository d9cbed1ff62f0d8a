#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Draws docs/frame-path.txt (boxes in rows, arrows down between them) as an
SVG: the picture at the top of docs/design.md. No graphviz needed.

    draw-frame-path.py SOURCE.txt OUTPUT.svg
    draw-frame-path.py --check SOURCE.txt SVG   (exit 1 when SVG is not
                                                 what SOURCE draws)"""
import html
import sys

CHAR_W, LINE_H, PAD, GAP_X, GAP_Y, MARGIN = 6.6, 16, 10, 24, 46, 20


def parse(text):
    rows, arrows = [], []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("box "):
            row = []
            for part in line.split(" ;; "):
                fields = [f.strip() for f in part[len("box "):].split("|")]
                row.append({"name": fields[0], "title": fields[1], "lines": fields[2:]})
            rows.append(row)
        elif line.startswith("arrow "):
            ends, _, label = line[len("arrow "):].partition("|")
            a, _, b = ends.partition("->")
            arrows.append((a.strip(), b.strip(), label.strip()))
        else:
            raise SystemExit("frame-path: cannot read the line %r" % raw)
    return rows, arrows


def box_width(b):
    return PAD * 2 + CHAR_W * max(len(b["title"]), *(len(t) for t in b["lines"] or [""]))


def layout(rows):
    boxes, y = {}, MARGIN
    widths = [sum(box_width(b) for b in row) + GAP_X * (len(row) - 1) for row in rows]
    total_w = max(widths) + 2 * MARGIN
    for row, rw in zip(rows, widths):
        h = PAD * 2 + LINE_H * (1 + len(max(row, key=lambda b: len(b["lines"]))["lines"]))
        x = (total_w - rw) / 2
        for b in row:
            w = box_width(b)
            boxes[b["name"]] = dict(b, x=x, y=y, w=w, h=h)
            x += w + GAP_X
        y += h + GAP_Y
    return boxes, total_w, y - GAP_Y + MARGIN


def svg(text):
    rows, arrows = parse(text)
    boxes, W, H = layout(rows)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="monospace" font-size="11">' % (W, H, W, H),
           '<defs><marker id="head" markerWidth="8" markerHeight="8" refX="7" refY="4" '
           'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#444"/></marker></defs>',
           '<rect width="100%" height="100%" fill="white"/>']
    for b in boxes.values():
        out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="6" fill="#eef3fb" '
                   'stroke="#4a6fa5"/>' % (b["x"], b["y"], b["w"], b["h"]))
        out.append('<text x="%.1f" y="%.1f" font-weight="bold">%s</text>'
                   % (b["x"] + PAD, b["y"] + PAD + 11, html.escape(b["title"])))
        for i, t in enumerate(b["lines"]):
            out.append('<text x="%.1f" y="%.1f">%s</text>'
                       % (b["x"] + PAD, b["y"] + PAD + 11 + LINE_H * (i + 1), html.escape(t)))
    for a, b, label in arrows:
        if a not in boxes or b not in boxes:
            raise SystemExit("frame-path: an arrow names a box that is not there: %s -> %s"
                             % (a, b))
        A, B = boxes[a], boxes[b]
        if B["y"] <= A["y"] + A["h"]:
            raise SystemExit("frame-path: arrows run down the page, to a later row: %s -> %s"
                             % (a, b))
        if B["y"] - (A["y"] + A["h"]) > GAP_Y:   # skips rows: around them on the right
            xr = max(v["x"] + v["w"] for v in boxes.values()) + 8
            x1, x2 = A["x"] + A["w"], B["x"] + B["w"]
            y1, y2 = A["y"] + A["h"] / 2, B["y"] + B["h"] / 2
            out.append('<path d="M%.1f,%.1f H%.1f V%.1f H%.1f" fill="none" stroke="#444" '
                       'marker-end="url(#head)"/>' % (x1, y1, xr, y2, x2 + 2))
            out.append('<text x="%.1f" y="%.1f" fill="#444" transform="rotate(90 %.1f %.1f)">'
                       '%s</text>' % (xr + 4, (y1 + y2) / 2, xr + 4, (y1 + y2) / 2,
                                      html.escape(label)))
            continue
        x1, x2 = A["x"] + A["w"] / 2, B["x"] + B["w"] / 2
        y1, y2 = A["y"] + A["h"], B["y"]
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#444" '
                   'marker-end="url(#head)"/>' % (x1, y1, x2, y2 - 1))
        out.append('<text x="%.1f" y="%.1f" fill="#444">%s</text>'
                   % ((x1 + x2) / 2 + 6, (y1 + y2) / 2 + 4, html.escape(label)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    check = argv[1:2] == ["--check"]
    args = argv[2:] if check else argv[1:]
    if len(args) != 2:
        raise SystemExit(__doc__)
    with open(args[0], encoding="utf-8") as f:
        drawn = svg(f.read())
    if check:
        with open(args[1], encoding="utf-8") as f:
            if f.read() != drawn:
                print("%s is not what %s draws: run scripts/draw-frame-path.py %s %s"
                      % (args[1], args[0], args[0], args[1]), file=sys.stderr)
                return 1
        return 0
    with open(args[1], "w", encoding="utf-8") as f:
        f.write(drawn)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
