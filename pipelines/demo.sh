#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The demo, a privacy filter: finds the faces in the sample clip with
# vjdetect, tracks them across frames with roitrack and blurs only them with
# satfilter roi-type=face, then writes the result.   pipelines/demo.sh [INPUT.webm] [OUTPUT.webm]
# Prints the frames processed, the faces found, the frames per second and
# the backends used.
set -euo pipefail
usage() {
  cat <<'USAGE'
Usage: pipelines/demo.sh [INPUT] [OUTPUT.webm]

The privacy filter on a video file: vjdetect finds the faces, roitrack
tracks them, satfilter roi-type=face blurs only them; the result is written
as WebM. Installs what is missing and builds into build/ first.

  INPUT        any video file GStreamer decodes (default: tests/data/sample-face.webm)
  OUTPUT.webm  where the result goes (default: demo-out/privacy.webm)
  -h, --help   this text
USAGE
}
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  -*) echo "demo: unknown option '$1' (pipelines/demo.sh --help)" >&2; exit 2 ;;
esac
if [ $# -gt 2 ]; then
  echo "demo: at most two arguments, INPUT and OUTPUT (pipelines/demo.sh --help)" >&2; exit 2
fi
here=$PWD
cd "$(dirname "$0")/.."
# an input named relative to where the demo was started
abs() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$here" "$1" ;; esac; }
in=tests/data/sample-face.webm
[ $# -ge 1 ] && in=$(abs "$1")
out=demo-out/privacy.webm
[ $# -ge 2 ] && out=$(abs "$2")
if [ ! -f "$in" ] || [ ! -r "$in" ]; then
  echo "demo: input '$in' is not a readable file" >&2; exit 1
fi
bash scripts/install-deps.sh
bash scripts/build.sh
mkdir -p "$(dirname "$out")"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export GST_PLUGIN_PATH="$PWD/build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
start=$(date +%s.%N)
# -m prints vjdetect's message for every frame; -v the backends chosen
gst-launch-1.0 -m -v filesrc location="$in" ! decodebin ! videoconvert ! \
  vjdetect name=detect ! roitrack delay=4 ! satfilter name=blur roi-type=face radius=12 ! videoconvert ! \
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
