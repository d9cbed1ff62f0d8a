#!/usr/bin/env bash
# The demo: filters the sample clip with satfilter and writes the result.
#   pipelines/demo.sh [INPUT.webm] [OUTPUT.webm]
# Prints the frames processed, the frames per second and the backend used.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh >/dev/null
in=${1:-tests/data/sample-face.webm}
out=${2:-demo-out/satfilter.webm}
mkdir -p "$(dirname "$out")"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export GST_PLUGIN_PATH="$PWD/build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
start=$(date +%s.%N)
gst-launch-1.0 -v filesrc location="$in" ! decodebin ! videoconvert ! \
  satfilter radius=6 ! identity name=count silent=false ! videoconvert ! \
  vp8enc deadline=1 ! webmmux ! filesink location="$out" >"$log" 2>&1 || {
  tail -20 "$log"; echo "demo: pipeline failed" >&2; exit 1; }
end=$(date +%s.%N)
frames=$(grep -c "count: last-message = chain" "$log" || true)
backend=$(grep -o "active-backend = [a-z]*" "$log" | tail -1 | cut -d' ' -f3)
fps=$(awk -v f="$frames" -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", f / (b - a) }')
echo "input:    $in"
echo "output:   $out"
echo "frames:   $frames"
echo "fps:      $fps (whole pipeline: decode, satfilter, encode)"
echo "backend:  ${backend:-unknown}"
