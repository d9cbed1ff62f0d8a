#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Several CPU pipelines on one machine (issue #24): the privacy filter
# (vjdetect ! satfilter roi-type=face) on the sample clip, as one pipeline,
# as 4 processes at once and as 4 branches of one process; with default
# settings (each process its own budget of cores), with the user's budget
# shared between processes (FASTVISION_SHARE_CORES=1), with threads=1, and with the
# budget turned off (FASTVISION_SHARE_CORES=0: every parallel region takes all the
# threads it asks for, as before kernels/common/fv_parallel.c shared the
# cores).
# Rounds alternate; prints the median wall time of each. Needs the plugin on GST_PLUGIN_PATH (default: build/gst).
#   tests/bench/bench_cpu_share.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$PWD/build/gst}
rounds=${1:-3}
clip=tests/data/sample-face.webm
pipe() { echo "filesrc location=$clip ! decodebin ! videoconvert ! vjdetect $1 ! satfilter roi-type=face $1 ! fakesink"; }
now() { date +%s.%N; }
one() { local t0; t0=$(now); gst-launch-1.0 -q $(pipe "$1"); echo "$(now) - $t0" | bc; }
procs() { local t0; t0=$(now); for _ in 1 2 3 4; do gst-launch-1.0 -q $(pipe "$1") & done; wait; echo "$(now) - $t0" | bc; }
branches() { local t0 d=""; for _ in 1 2 3 4; do d="$d $(pipe "$1")"; done; t0=$(now); gst-launch-1.0 -q $d; echo "$(now) - $t0" | bc; }
declare -A t
add() { t[$1]="${t[$1]:-} $2"; }
for r in $(seq "$rounds"); do
  add "one, default" "$(one "")"
  add "one, budget off" "$(FASTVISION_SHARE_CORES=0 one "")"
  add "one, threads=1" "$(one threads=1)"
  add "4 processes, default" "$(procs "")"
  add "4 processes, shared (FASTVISION_SHARE_CORES=1)" "$(FASTVISION_SHARE_CORES=1 procs "")"
  add "4 processes, budget off" "$(FASTVISION_SHARE_CORES=0 procs "")"
  add "4 processes, threads=1" "$(procs threads=1)"
  add "1 process, 4 branches, default" "$(branches "")"
  add "1 process, 4 branches, budget off" "$(FASTVISION_SHARE_CORES=0 branches "")"
  add "1 process, 4 branches, threads=1" "$(branches threads=1)"
  echo "round $r done" >&2
done
echo "$(nproc) cores, $rounds rounds, $(gst-launch-1.0 --version | sed -n 2p)"
for k in "${!t[@]}"; do
  printf '%-45s median %6.2f s   (%s)\n' "$k" "$(tr ' ' '\n' <<<"${t[$k]}" | grep . | sort -n \
    | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')" "${t[$k]# }"
done | sort
