#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Element cost in running pipelines on the GPU host (docs/benchmarks.md,
# "GPU-resident pipelines"): each line is a pipeline's steady-state time per
# frame minus the same pipeline without the elements measured.
#   tests/bench/run_gpu_pipelines.sh BENCH_PIPELINE_BINARY [CLIP]
# Device frames come from one upload frozen by imagefreeze (the same CUDA
# buffer every frame), so the numbers are the elements' own; host frames
# from one system-memory frame frozen the same way.
set -euo pipefail
bench=${1:?path of bench_pipeline}
clip=${2:-tests/data/sample-face.webm}
n=${FRAMES:-300}
b() { "$bench" -r 3 -w 20 "$@" 2>&1 | grep -v XDG_RUNTIME_DIR || echo "$1: failed"; }
src4k="videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format=RGBA,width=3840,height=2160"
src8k="videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format=GRAY8,width=7680,height=4320"
cuda="video/x-raw(memory:CUDAMemory)"
dev4k="$src4k ! cudaupload ! $cuda ! imagefreeze num-buffers=$n"
host4k="$src4k ! imagefreeze num-buffers=$n"
host8k="$src8k ! imagefreeze num-buffers=$n"
sf="satfilter radius=15 backend=cuda"
echo "== CUDA memory (device frames), 4K RGBA"
b "satfilter r=15, CUDA memory" "$dev4k ! $sf ! fakesink name=sink" "$dev4k ! fakesink name=sink"
b "4 x satfilter r=15, CUDA memory" "$dev4k ! $sf ! $sf ! $sf ! $sf ! fakesink name=sink" \
  "$dev4k ! fakesink name=sink"
b "fftconvolve sigma=3, CUDA memory" "$dev4k ! fftconvolve gaussian-sigma=3 backend=cuda ! fakesink name=sink" \
  "$dev4k ! fakesink name=sink"
b "vjdetect, CUDA memory" "$dev4k ! vjdetect ${FV_CASCADE:+cascade=$FV_CASCADE} backend=cuda ! fakesink name=sink" \
  "$dev4k ! fakesink name=sink"
dev4kyuv="videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format=NV12,width=3840,height=2160 ! cudaupload ! $cuda ! imagefreeze num-buffers=$n"
b "autofill NV12, CUDA memory" "$dev4kyuv ! autofill backend=cuda ! fakesink name=sink" \
  "$dev4kyuv ! fakesink name=sink"
dev1080="filesrc location=$clip ! decodebin ! videoconvert ! videoscale ! video/x-raw,format=NV12,width=1920,height=1080 ! cudaupload ! $cuda ! imagefreeze num-buffers=$n"
b "vjdetect + satfilter roi-type=face, 1080p NV12, CUDA memory" \
  "$dev1080 ! vjdetect ${FV_CASCADE:+cascade=$FV_CASCADE} backend=cuda ! satfilter roi-type=face radius=12 backend=cuda ! fakesink name=sink" \
  "$dev1080 ! fakesink name=sink"
echo "== host frames: whole frame (FASTVISION_BOX_BANDS=0) against bands over streams"
live4k="videotestsrc num-buffers=$n pattern=solid-color ! video/x-raw,format=RGBA,width=3840,height=2160"
live8k="videotestsrc num-buffers=$n pattern=solid-color ! video/x-raw,format=GRAY8,width=7680,height=4320"
for bands in 0 auto; do
  if [ $bands = auto ]; then unset FASTVISION_BOX_BANDS; else export FASTVISION_BOX_BANDS=$bands; fi
  b "satfilter 4K RGBA, pinned source, bands=$bands" "$live4k ! $sf ! fakesink name=sink" "$live4k ! fakesink name=sink"
  b "satfilter 8K GRAY8, pinned source, bands=$bands" "$live8k ! $sf ! fakesink name=sink" "$live8k ! fakesink name=sink"
  b "satfilter 4K RGBA, pageable source, bands=$bands" "$host4k ! $sf ! fakesink name=sink" "$host4k ! fakesink name=sink"
done
unset FASTVISION_BOX_BANDS
echo "== host frames"
b "satfilter r=15, 4K RGBA host" "$host4k ! $sf ! fakesink name=sink" "$host4k ! fakesink name=sink"
b "satfilter r=15, 4K RGBA host, cpu" "$host4k ! satfilter radius=15 backend=cpu ! fakesink name=sink" \
  "$host4k ! fakesink name=sink"
b "satfilter r=15, 8K GRAY8 host" "$host8k ! $sf ! fakesink name=sink" "$host8k ! fakesink name=sink"
b "4 x satfilter r=15, 4K RGBA host" "$host4k ! $sf ! $sf ! $sf ! $sf ! fakesink name=sink" \
  "$host4k ! fakesink name=sink"
b "4 x satfilter, cudaupload..cudadownload" \
  "$host4k ! cudaupload ! $cuda ! $sf ! $sf ! $sf ! $sf ! cudadownload ! fakesink name=sink" \
  "$host4k ! cudaupload ! cudadownload ! fakesink name=sink"
if gst-inspect-1.0 nvh264dec >/dev/null 2>&1 && gst-inspect-1.0 x264enc >/dev/null 2>&1; then
  echo "== NVDEC 1080p privacy filter"
  h264=${TMPDIR:-/tmp}/face-1080p.mp4
  [ -s "$h264" ] || gst-launch-1.0 -q filesrc location="$clip" ! decodebin ! videoconvert ! \
    videoscale ! video/x-raw,format=I420,width=1920,height=1080 ! identity eos-after=600 ! \
    x264enc speed-preset=ultrafast tune=zerolatency bitrate=8000 key-int-max=60 ! h264parse ! \
    mp4mux ! filesink location="$h264"
  dec="filesrc location=$h264 ! qtdemux ! h264parse ! nvh264dec"
  vj="vjdetect ${FV_CASCADE:+cascade=$FV_CASCADE} backend=cuda"
  b "vjdetect + satfilter roi-type=face, NVDEC" \
    "$dec ! $vj ! satfilter roi-type=face radius=12 backend=cuda ! fakesink name=sink" \
    "$dec ! fakesink name=sink"
  b "... same, then cudadownload" \
    "$dec ! $vj ! satfilter roi-type=face radius=12 backend=cuda ! cudadownload ! fakesink name=sink" \
    "$dec ! cudadownload ! fakesink name=sink"
  b "vjdetect + satfilter, NVDEC, backend=cpu" \
    "$dec ! cudadownload ! vjdetect ${FV_CASCADE:+cascade=$FV_CASCADE} backend=cpu ! satfilter roi-type=face radius=12 backend=cpu ! fakesink name=sink" \
    "$dec ! cudadownload ! fakesink name=sink"
fi
