#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The per-element cost of CUDA chains on the GPU host, for comparing
# GStreamer 1.22 (every element waits for its stream on the host) with
# 1.24+ (neighbours order on each other's streams; docs/gpu-pipelines.md):
# 4 x satfilter on 4K RGBA device frames, the same between cudaupload and
# cudadownload, and the NVDEC privacy filter. Run with a bundle's env.sh
# sourced and GST_PLUGIN_PATH set:
#   tests/bench/run_gpu_chain.sh BENCH_PIPELINE CASCADE [CLIP]
set -euo pipefail
B=${1:?path of bench_pipeline}
cascade=${2:?haarcascade_frontalface_default.xml}
clip=${3:-tests/data/sample-face.mp4}
gst-launch-1.0 --version | sed -n 2p
c="video/x-raw(memory:CUDAMemory)"
src4k="videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format=RGBA,width=3840,height=2160"
dev4k="$src4k ! cudaupload ! $c ! imagefreeze num-buffers=300"
host4k="$src4k ! imagefreeze num-buffers=300"
sf="satfilter radius=15 backend=cuda"
b() { "$B" -r 5 -w 20 "$@" 2>&1 | grep -v XDG_RUNTIME_DIR || echo "$1: failed"; }
b "4 x satfilter 4K RGBA, CUDA memory" "$dev4k ! $sf ! $sf ! $sf ! $sf ! fakesink name=sink" \
  "$dev4k ! fakesink name=sink"
b "4 x satfilter 4K RGBA, cudaupload..cudadownload" \
  "$host4k ! cudaupload ! $c ! $sf ! $sf ! $sf ! $sf ! cudadownload ! fakesink name=sink" \
  "$host4k ! cudaupload ! $c ! cudadownload ! fakesink name=sink"
dec="filesrc location=$clip ! qtdemux ! h264parse ! nvh264dec"
b "NVDEC privacy filter (vjdetect ! satfilter roi-type=face)" \
  "$dec ! vjdetect cascade=$cascade backend=cuda ! satfilter roi-type=face radius=12 backend=cuda ! fakesink name=sink" \
  "$dec ! fakesink name=sink"
