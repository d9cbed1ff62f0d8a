#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# vjdetect's kernel on the GPU host (not run by CI): run from the folder
# holding bench_vj, the frames (make_vj_frames.py) under data/bench and the
# cascade under cascades/. Times frames already on the device and frames in
# pinned host memory (as the element's pools give them), then the phases.
set -euo pipefail
C=${CASCADE:-cascades/haarcascades/haarcascade_frontalface_default.xml}
F="data/bench/faces-vga.pgm data/bench/faces-1080p.pgm data/bench/faces-4k.pgm"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "## device frames";       ./bench_vj --device --iters 100 --min-size 24 $C $F
echo "## pinned host frames";  ./bench_vj --cuda --iters 100 --min-size 24 $C $F
echo "## phases (ms)";         FASTVISION_VJ_PROFILE=1 ./bench_vj --device --iters 3 --min-size 24 $C $F 2>&1 | grep -v '^#' | awk 'NR % 4 == 0'
echo "## CPU, $(nproc) cores"; ./bench_vj --iters 5 --min-size 24 $C $F
