#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prints a one-line summary a second of the metapublish documents read on
standard input (JSON lines), per stream: documents, regions by type and the
measured area. Feed it from the broker, or from a file:

    mosquitto_sub -h BROKER -t 'fastvision/#' -q 1 | pipelines/results_summary.py
    tail -f demo-out/inspection.jsonl | pipelines/results_summary.py
"""
import collections
import json
import sys
import time


def main():
    window = collections.defaultdict(lambda: collections.Counter())
    last = time.monotonic()
    for line in sys.stdin:
        try:
            doc = json.loads(line)
        except ValueError:
            continue   # not a document
        c = window[doc.get("stream", "?")]
        c["documents"] += 1
        for r in doc.get("regions", []):
            c["regions:" + r["type"]] += 1
            c["area"] += r.get("params", {}).get("region", {}).get("area", 0)
        now = time.monotonic()
        if now - last >= 1.0:
            stamp = time.strftime("%H:%M:%S")
            for stream, c in sorted(window.items()):
                kinds = ", ".join("%d %s" % (n, k.split(":", 1)[1])
                                  for k, n in sorted(c.items()) if k.startswith("regions:"))
                print("%s %s: %d documents, %s%s" % (
                    stamp, stream, c["documents"], kinds or "no regions",
                    ", %d px measured" % c["area"] if c["area"] else ""), flush=True)
            window.clear()
            last = now


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
