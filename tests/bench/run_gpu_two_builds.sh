#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Before/after pipelines on the GPU host: two builds' plugins in one
# GStreamer, rounds alternating with the order swapped each round
# (docs/benchmarks.md, "What #42's house work changed"). Run from the tree
# whose GPU bundle (scripts/gpu-bundle.sh) is unpacked in .gpu; OLD_DIR
# holds the other build's plugin file(s) and any library they need that the
# bundle lacks (an OpenMP build's libgomp.so.1).
#   tests/bench/run_gpu_two_builds.sh OLD_DIR [ROUNDS] [CLIP]
set -u
old=${1:?the folder of the old plugin}
rounds=${2:-6}
clip=${3:-tests/data/sample-face.mp4}
source .gpu/gst/env.sh
casc=$PWD/.gpu/cascades/haarcascades/haarcascade_frontalface_default.xml
B=.gpu/bin/bench_pipeline
c="video/x-raw(memory:CUDAMemory)"
dec="filesrc location=$clip ! qtdemux ! h264parse ! nvh264dec"
src4k="videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format=RGBA,width=3840,height=2160"
dev4k="$src4k ! cudaupload ! $c ! imagefreeze num-buffers=300"
sf="satfilter radius=15 backend=cuda"
base_ld=$LD_LIBRARY_PATH
use() {
  if [ "$1" = old ]; then export GST_PLUGIN_PATH=$old LD_LIBRARY_PATH=$base_ld:$old
  else export GST_PLUGIN_PATH=$PWD/.gpu/plugin LD_LIBRARY_PATH=$base_ld; fi
  export GST_REGISTRY=${TMPDIR:-/tmp}/reg-two-builds-$1.bin
}
for d in old new; do
  use $d
  gst-inspect-1.0 satfilter >/dev/null 2>&1 || { echo "$d build: no satfilter" >&2; exit 1; }
done
b() { "$B" -r 5 -w 20 "$@" 2>&1 | grep -v XDG_RUNTIME_DIR || echo "$1: failed"; }
for round in $(seq "$rounds"); do
  order="old new"; [ $((round % 2)) = 0 ] && order="new old"
  for d in $order; do
    use $d
    echo "=== round $round, $d"
    b "NVDEC privacy filter" "$dec ! vjdetect cascade=$casc backend=cuda ! satfilter roi-type=face radius=12 backend=cuda ! fakesink name=sink" "$dec ! fakesink name=sink"
    b "vjdetect alone after NVDEC" "$dec ! vjdetect cascade=$casc backend=cuda ! fakesink name=sink" "$dec ! fakesink name=sink"
    b "4 x satfilter 4K RGBA, CUDA memory" "$dev4k ! $sf ! $sf ! $sf ! $sf ! fakesink name=sink" "$dev4k ! fakesink name=sink"
  done
done
