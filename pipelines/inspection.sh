#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Inspection line: camera -> grey -> adaptive threshold (satfilter) ->
# filled silhouettes (autofill) -> a window, or a recording.
#   pipelines/inspection.sh [OUTPUT.webm]
# Uses /dev/video0 when there is one, else the sample clip. With a display
# and no OUTPUT it shows the result; otherwise it records demo-out/inspection.webm.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
export GST_PLUGIN_PATH="$PWD/build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
if [ -e /dev/video0 ]; then
  src="v4l2src device=/dev/video0 num-buffers=${FRAMES:-300}"
else
  src="filesrc location=tests/data/sample-face.webm ! decodebin"
fi
chain="videoconvert ! video/x-raw,format=GRAY8 ! satfilter mode=threshold radius=15 sensitivity=0.15 ! autofill threshold=127 ! videoconvert"
if [ $# -eq 0 ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec gst-launch-1.0 $src ! $chain ! autovideosink
fi
out=${1:-demo-out/inspection.webm}
mkdir -p "$(dirname "$out")"
gst-launch-1.0 -q $src ! $chain ! vp8enc deadline=1 ! webmmux ! filesink location="$out"
echo "inspection line written to $out"
