#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The demo, a privacy filter: finds the faces in the sample clip with
# vjdetect, tracks them across frames with roitrack and blurs only them with
# satfilter roi-type=face, then writes the result.   pipelines/demo.sh [INPUT.webm] [OUTPUT.webm]
# Prints the frames processed, the faces found, the frames per second and
# the backends used.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
in=${1:-tests/data/sample-face.webm}
out=${2:-demo-out/privacy.webm}
mkdir -p "$(dirname "$out")"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export GST_PLUGIN_PATH="$PWD/build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
start=$(date +%s.%N)
# -m prints vjdetect's message for every frame; -v the backends chosen
gst-launch-1.0 -m -v filesrc location="$in" ! decodebin ! videoconvert ! \
  vjdetect name=detect ! roitrack delay=3 ! satfilter name=blur roi-type=face radius=12 ! videoconvert ! \
  vp8enc deadline=1 ! webmmux ! filesink location="$out" >"$log" 2>&1 || {
  tail -20 "$log"; echo "demo: pipeline failed" >&2; exit 1; }
end=$(date +%s.%N)
frames=$(grep -c '(element): vjdetect, ' "$log" || true)
faces=$(grep '(element): vjdetect, ' "$log" | grep -o '"face\\,' | wc -l)
with_face=$(grep '(element): vjdetect, ' "$log" | grep -c '"face\\,' || true)
backend() { grep -o "$1.*active-backend = [a-z]*" "$log" | tail -1 | awk '{print $NF}'; }
fps=$(awk -v f="$frames" -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", f / (b - a) }')
echo "input:    $in"
echo "output:   $out (faces blurred)"
echo "frames:   $frames"
echo "faces:    $faces detections, in $with_face of $frames frames"
echo "fps:      $fps (whole pipeline: decode, vjdetect, satfilter, encode)"
echo "backend:  vjdetect $(backend detect), satfilter $(backend blur)"
