#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# satfilter as an element on the CPU against gst-plugins-bad's cvsmooth
# (issue #24): 1080p GRAY8 behind videotestsrc, box mean radius 15 against
# cvsmooth type=blur 31x31; the cost of a frame is the wall time of the
# pipeline less the same pipeline with identity, over the frames. On a
# quiet machine, and loaded with one busy loop per core (`yes`, which the
# scheduler shares the cores with). Also satfilter with the machine's
# budget of cores off (FASTVISION_SHARE_CORES=0) and with threads=1. Rounds
# alternate; prints the median per-frame cost and satfilter's speed-up.
# Needs gstreamer1.0-opencv and the plugin on GST_PLUGIN_PATH (default
# build/gst).   tests/bench/bench_cpu_element.sh [ROUNDS] [FRAMES]
set -euo pipefail
cd "$(dirname "$0")/../.."
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$PWD/build/gst}
rounds=${1:-5}
frames=${2:-400}
gst-inspect-1.0 cvsmooth >/dev/null 2>&1 || { echo "cvsmooth missing: apt-get install gstreamer1.0-opencv" >&2; exit 1; }
src="videotestsrc num-buffers=$frames ! video/x-raw,format=GRAY8,width=1920,height=1080"
now() { date +%s.%N; }
wall() { local t0; t0=$(now); env $1 gst-launch-1.0 -q $src ! $2 ! fakesink; echo "$(now) - $t0" | bc; }
declare -A t
add() { t[$1]="${t[$1]:-} $2"; }
load_pids=()
load() { for _ in $(seq "$(nproc)"); do yes >/dev/null & load_pids+=($!); done; sleep 0.5; }
unload() { kill "${load_pids[@]}" 2>/dev/null; wait "${load_pids[@]}" 2>/dev/null || true; load_pids=(); }
trap unload EXIT
for r in $(seq "$rounds"); do
  for state in quiet loaded; do
    [ $state = loaded ] && load
    add "$state identity" "$(wall "" identity)"
    add "$state satfilter" "$(wall "" "satfilter radius=15")"
    add "$state satfilter, budget off" "$(wall FASTVISION_SHARE_CORES=0 "satfilter radius=15")"
    add "$state satfilter threads=1" "$(wall "" "satfilter radius=15 threads=1")"
    add "$state cvsmooth" "$(wall "" "cvsmooth type=blur kernel-width=31 kernel-height=31")"
    [ $state = loaded ] && unload
  done
  echo "round $r done" >&2
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
echo "$(nproc) cores, $rounds rounds of $frames frames, $(gst-launch-1.0 --version | sed -n 2p)"
for state in quiet loaded; do
  base=$(median "${t[$state identity]}")
  cv=$(median "${t[$state cvsmooth]}")
  for e in satfilter "satfilter, budget off" "satfilter threads=1" cvsmooth; do
    m=$(median "${t[$state $e]}")
    awk -v s="$state" -v e="$e" -v m="$m" -v b="$base" -v c="$cv" -v n="$frames" 'BEGIN {
      printf "%-7s %-24s %.3f ms a frame   cvsmooth / this %.2fx\n", s, e, (m - b) * 1000 / n,
        (c - b) / (m - b) }'
  done
done
