#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/inspection.sh as a user runs it, on the sample clip of parts:
- the recording shows an inspection (filled silhouettes: neither blank nor
  all white) with the measurements drawn (mid-grey outlines);
- it publishes one JSON document a frame to a file, with the parts and
  holes measured (the plate's seven holes when it is in view, each naming a
  part of the same frame; the frame's counts);
- pipelines/results_summary.py summarises the file a line a second of the
  documents' time, every document counted;
- with --broker it publishes the same to a real mosquitto broker, read back
  with mosquitto_sub, and results_summary.py fed by mosquitto_sub prints the
  same lines as from the file.

    test_inspection.py SOURCE_DIR PLUGIN_DIR"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from fvcheck import Checks  # noqa: E402

src, plugin = sys.argv[1], sys.argv[2]
check = Checks()




def inspection(tmp, *args):
    env = dict(os.environ, DISPLAY="", WAYLAND_DISPLAY="", FV_PLUGIN_DIR=plugin)
    return subprocess.run(["bash", f"{src}/pipelines/inspection.sh", *args], env=env,
                          capture_output=True, text=True, timeout=300)


def white_fractions(video, tmp):
    raw = os.path.join(tmp, "frames.gray")
    subprocess.run(["gst-launch-1.0", "-q", "filesrc", f"location={video}", "!", "decodebin",
                    "!", "videoconvert", "!", "video/x-raw,format=GRAY8,width=400,height=300",
                    "!", "filesink", f"location={raw}"], check=True, timeout=120)
    data = open(raw, "rb").read()
    n = 400 * 300
    return [sum(1 for b in data[i:i + n] if b > 127) / n for i in range(0, len(data) - n + 1, n)]


def grey_fraction(video, tmp):
    """The share of pixels drawn in mid-grey (the outlines and ids)."""
    raw = os.path.join(tmp, "frames.gray")
    data = open(raw, "rb").read()
    return sum(1 for b in data if 100 <= b <= 156) / max(1, len(data))


def summary(args=(), stdin=None):
    r = subprocess.run([sys.executable, f"{src}/pipelines/results_summary.py", *args],
                       input=stdin, capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout.splitlines()


def documents_in(lines):
    return sum(int(line.split(": ", 1)[1].split(" documents")[0]) for line in lines)


def main():
    tmp = tempfile.mkdtemp(prefix="fvinsp")
    try:
        docs_path = os.path.join(tmp, "m.jsonl")
        video = os.path.join(tmp, "inspection.webm")
        r = inspection(tmp, "--publish", docs_path, "--name", "line-1", video)
        check(r.returncode == 0, f"inspection.sh failed: {r.stderr[-2000:]}")
        white = white_fractions(video, tmp)
        mean = sum(white) / max(1, len(white))
        check(len(white) == 120 and 0.05 < mean < 0.6 and max(white) < 0.9,
              f"recording: {len(white)} frames, mean white {mean:.3f}, most {max(white):.3f}")
        grey = grey_fraction(video, tmp)
        check(0.0005 < grey < 0.05, f"recording: {grey:.4f} of the pixels drawn")
        docs = [json.loads(line) for line in open(docs_path)]
        holes = [sum(r["type"] == "region" for r in d["regions"]) for d in docs]
        check(len(docs) == 120 and all(d["stream"] == "line-1" for d in docs),
              f"documents: {len(docs)}")
        check(max(holes) == 7 and all(r["params"]["region"]["area"] >= 20
                                      for d in docs for r in d["regions"]
                                      if r["type"] == "region"),
              f"holes per frame {holes}")
        # each hole names a part of its frame; the frame's counts agree
        bad = 0
        for d in docs:
            ids = {r["params"]["part"]["id"] for r in d["regions"] if r["type"] == "part"}
            bad += any(r["params"]["region"]["part"] not in ids
                       for r in d["regions"] if r["type"] == "region")
            m = d.get("measure", {})
            bad += m.get("count") != sum(r["type"] == "region" for r in d["regions"])
            bad += m.get("part-count") != len(ids)
        check(bad == 0, f"{bad} documents whose holes, parts and counts disagree")
        rc, lines = summary([docs_path])
        seconds = {int(d["pts"] // 10**9) for d in docs}
        check(rc == 0 and len(lines) == len(seconds) and documents_in(lines) == 120
              and all("parts seen" in line for line in lines[1:-1]),
              f"results_summary.py on the file: {lines}")
        mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if os.access(mosquitto, os.X_OK) and shutil.which("mosquitto_sub"):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            broker = subprocess.Popen([mosquitto, "-p", str(port)], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
            time.sleep(0.5)
            sub = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t",
                                    "fastvision/inspection/#", "-q", "1", "-C", "120", "-W", "120"],
                                   stdout=subprocess.PIPE, text=True)
            time.sleep(0.5)
            r = inspection(tmp, "--broker", f"127.0.0.1:{port}", "--name", "line-2",
                           os.path.join(tmp, "b.webm"))
            out, _ = sub.communicate(timeout=150)
            got = [json.loads(line) for line in out.splitlines() if line.strip()]
            check(r.returncode == 0 and len(got) == 120
                  and [sum(r["type"] == "region" for r in d["regions"]) for d in got] == holes
                  and all(d["stream"] == "line-2" for d in got),
                  f"broker: {len(got)} documents of 120")
            # a burst from the broker: the file's documents published at
            # once, read by mosquitto_sub into results_summary.py
            sub = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t",
                                    "burst", "-q", "1", "-C", "120", "-W", "60"],
                                   stdout=subprocess.PIPE)
            time.sleep(0.5)
            subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-t", "burst",
                            "-q", "1", "-l"], stdin=open(docs_path), check=True, timeout=60)
            burst = subprocess.run([sys.executable, f"{src}/pipelines/results_summary.py"],
                                   stdin=sub.stdout, capture_output=True, text=True, timeout=90)
            sub.wait(30)
            broker.terminate()
            check(burst.stdout.splitlines() == lines,
                  f"results_summary.py on a burst: {burst.stdout!r}, from the file {lines}")
        else:
            print("no mosquitto: the broker part is skipped")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
