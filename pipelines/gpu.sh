#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The privacy filter with every frame on the GPU: the clip decoded by NVDEC
# (nvcodec), faces found by vjdetect, tracked by roitrack and blurred by satfilter roi-type=face
# on CUDA memory in one shared CUDA context, one download (cudadownload),
# then encoded to a file.   pipelines/gpu.sh [INPUT] [OUTPUT]
# Prints the frames, the frames per second and, for each element, its
# backend and the memory it worked on. Without a GPU, NVDEC decoder or
# nvcodec it says which is missing and runs the same filter on the CPU.
# FV_PLUGIN_DIR=DIR uses a plugin built elsewhere (no install, no build:
# for a GPU host with a bundled runtime).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${FV_PLUGIN_DIR:-}" ]; then
  bash scripts/install-deps.sh
  bash scripts/build.sh
  FV_PLUGIN_DIR=$PWD/build/gst
fi
export GST_PLUGIN_PATH="$FV_PLUGIN_DIR${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
in=${1:-tests/data/sample-face.mp4}
out=${2:-demo-out/privacy-gpu.mp4}
mkdir -p "$(dirname "$out")"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cascade=${FV_CASCADE:+cascade=$FV_CASCADE}

# the NVDEC decoder for the clip's codec, if this host has one
if command -v gst-discoverer-1.0 >/dev/null; then
  codec=$(gst-discoverer-1.0 "$in" 2>/dev/null | grep -o -m1 -E 'H\.264|H\.265|VP9|VP8' || true)
else   # gst-plugins-base-apps not installed: the usual codec of the container
  case "$in" in *.mp4|*.mov|*.h264) codec=H.264 ;; *.webm) codec=VP8 ;; *) codec= ;; esac
fi
case "$codec" in
  H.264) dec=nvh264dec ;; H.265) dec=nvh265dec ;; VP9) dec=nvvp9dec ;; VP8) dec=nvvp8dec ;;
  *) dec= ;;
esac
why=
if ! gst-inspect-1.0 cudaupload >/dev/null 2>&1; then
  why="nvcodec's CUDA elements are not available (no NVIDIA driver or GPU, or gst-plugins-bad without nvcodec)"
elif [ -z "$dec" ] || ! gst-inspect-1.0 "$dec" >/dev/null 2>&1; then
  why="no NVDEC decoder for ${codec:-the codec of $in} on this host"
elif ! gst-inspect-1.0 satfilter 2>/dev/null | grep -c 'memory:CUDAMemory' >/dev/null; then
  why="this fastvision build has no CUDA memory support (built without CUDA or libgstreamer-plugins-bad1.0-dev)"
fi
if gst-inspect-1.0 x264enc >/dev/null 2>&1; then
  enc="x264enc speed-preset=veryfast ! h264parse ! mp4mux"
else
  enc="vp8enc deadline=1 ! webmmux"; out=${out%.*}.webm
fi

if [ -z "$why" ]; then
  where=gpu
  pipeline="filesrc location=$in ! parsebin ! $dec ! vjdetect name=detect $cascade ! \
    roitrack delay=4 ! satfilter name=blur roi-type=face radius=12 ! cudadownload ! videoconvert ! $enc ! \
    filesink location=$out"
else
  echo "gpu.sh: $why; running the same filter on the CPU instead." >&2
  where=cpu
  pipeline="filesrc location=$in ! decodebin ! videoconvert ! vjdetect name=detect $cascade \
    backend=cpu ! roitrack delay=4 ! satfilter name=blur roi-type=face radius=12 backend=cpu ! videoconvert ! \
    $enc ! filesink location=$out"
fi
start=$(date +%s.%N)
# -m: vjdetect's message per frame; -v: the caps and backends chosen
eval gst-launch-1.0 -m -v "$pipeline" >"$log" 2>&1 || {
  tail -20 "$log"; echo "gpu.sh: pipeline failed" >&2; exit 1; }
end=$(date +%s.%N)
frames=$(grep -c '(element): vjdetect, ' "$log" || true)
faces=$(grep '(element): vjdetect, ' "$log" | grep -o '"face\\,' | wc -l)
backend() { grep -o "$1.*active-backend = [a-z]*" "$log" | tail -1 | awk '{print $NF}'; }
memory() {
  if grep -E "$1\.GstPad:sink: caps = " "$log" | tail -1 | grep -q 'memory:CUDAMemory'; then
    echo "CUDA memory"; else echo "system memory"; fi
}
fps=$(awk -v f="$frames" -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", f / (b - a) }')
if [ "$where" = gpu ]; then
  echo "input:    $in (decoded by $dec)"
else
  echo "input:    $in (decoded on the CPU by decodebin)"
fi
echo "output:   $out (faces blurred)"
echo "frames:   $frames, $faces face detections"
echo "fps:      $fps (whole pipeline: decode, vjdetect, satfilter, download, encode)"
echo "vjdetect: $(backend detect) backend, $(memory detect)"
echo "satfilter: $(backend blur) backend, $(memory blur)"
echo "ran on:   $where"
