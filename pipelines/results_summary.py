#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Summarises metapublish documents (JSON lines): one line per stream and
second of the documents' own time (their "pts", else "running_time", else
"wall_clock"), printed as soon as a later second's document arrives, and
the seconds still open at the end. A file, a burst from a broker and a live
feed give the same lines:

    pipelines/results_summary.py demo-out/inspection.jsonl
    mosquitto_sub -h BROKER -t 'fastvision/#' -q 1 | pipelines/results_summary.py
    tail -f demo-out/inspection.jsonl | pipelines/results_summary.py

A line gives the documents, the regions a frame by type (mean and most),
for autofill's measurements the parts seen (distinct ids), the holes a part
and the measured area in the document's unit, and how many regions were
counted but not listed.
"""
import collections
import datetime
import json
import sys


def seconds_of(doc):
    """The document's time in seconds, or None."""
    for key in ("pts", "running_time"):
        t = doc.get(key)
        if isinstance(t, (int, float)):
            return t / 1e9
    wall = doc.get("wall_clock")
    if isinstance(wall, str):
        try:
            return datetime.datetime.fromisoformat(wall.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


class Second:
    """What one stream's documents of one second held."""

    def __init__(self):
        self.documents = 0
        self.regions = collections.Counter()   # type: regions in all
        self.most = collections.Counter()      # type: most in one frame
        self.parts = set()                     # ids of parts seen
        self.holes = 0
        self.area = 0.0                        # holes' measured area, in unit²
        self.part_area = 0.0
        self.unlisted = 0
        self.unit = None

    def add(self, doc):
        self.documents += 1
        frame = collections.Counter()
        for r in doc.get("regions", []):
            if not isinstance(r, dict):
                continue
            frame[r.get("type", "?")] += 1
            params = r.get("params", {}) if isinstance(r.get("params"), dict) else {}
            part = params.get("part")
            if isinstance(part, dict) and "id" in part:
                self.parts.add(part["id"])
        for t, n in frame.items():
            self.regions[t] += n
            self.most[t] = max(self.most[t], n)
        m = doc.get("measure")
        if isinstance(m, dict):
            self.unit = m.get("unit", self.unit)
            self.holes += m.get("count", 0) or 0
            self.area += m.get("unit-area", 0) or 0
            self.part_area += m.get("part-unit-area", 0) or 0
            self.unlisted += (m.get("unlisted", 0) or 0) + (m.get("part-unlisted", 0) or 0)
        else:   # documents of earlier releases: the holes' params only
            for r in doc.get("regions", []):
                region = r.get("params", {}).get("region", {}) if isinstance(r, dict) else {}
                if isinstance(region, dict) and "area" in region:
                    self.holes += 1
                    self.area += region["area"]

    def line(self, stream, second):
        stamp = str(datetime.timedelta(seconds=int(second))) if second is not None else "?"
        n = max(self.documents, 1)
        kinds = ", ".join(f"{self.regions[t] / n:.1f} {t} (most {self.most[t]})"
                          for t in sorted(self.regions)) or "no regions"
        text = f"{stamp} {stream}: {self.documents} documents, {kinds} a frame"
        unit = self.unit or "px"
        if self.parts:
            text += f"; {len(self.parts)} parts seen"
            if self.part_area:
                text += f", {self.part_area / n:.1f} {unit}² of parts a frame"
        if self.holes:
            text += f"; {self.holes / n:.1f} holes a frame, {self.area / n:.1f} {unit}² of holes"
        if self.unlisted:
            text += f"; {self.unlisted} counted but not listed"
        return text


def summarise(lines, out=sys.stdout):
    open_seconds = {}   # stream: (second, Second)
    skipped = 0
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            skipped += 1   # not a document (a probe, a broken line)
            continue
        if not isinstance(doc, dict):
            skipped += 1
            continue
        stream = str(doc.get("stream", "?"))
        t = seconds_of(doc)
        second = int(t // 1) if t is not None else None
        cur = open_seconds.get(stream)
        if cur and cur[0] != second:
            print(cur[1].line(stream, cur[0]), file=out, flush=True)
            cur = None
        if not cur:
            cur = open_seconds[stream] = (second, Second())
        cur[1].add(doc)
    for stream, (second, s) in sorted(open_seconds.items()):
        print(s.line(stream, second), file=out, flush=True)
    if skipped:
        print(f"{skipped} lines were not documents", file=sys.stderr)


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    paths = sys.argv[1:]
    if not paths:
        summarise(sys.stdin)
        return 0
    for p in paths:
        try:
            with open(p) as f:
                summarise(f)
        except OSError as e:
            print(f"results_summary.py: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        pass
