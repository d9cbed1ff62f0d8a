#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Inspection line: camera -> grey -> adaptive threshold (satfilter) ->
# filled silhouettes (autofill, measuring every part and its holes, drawn
# on the picture: each part's box and id, each hole's box) -> measurements
# out (metapublish) -> a window, or a recording.
#   pipelines/inspection.sh [--broker HOST[:PORT]] [--publish LOCATION]
#                           [--name NAME] [OUTPUT.webm]
# Uses /dev/video0 when there is one, else the sample clip of parts on a
# belt (tests/data/parts.webm). With a display and no OUTPUT it shows the
# result; otherwise it records demo-out/inspection.webm.
# Measurements (one JSON document a frame: each part with its id along the
# belt and each hole with its part, box, area, centroid, perimeter,
# circularity, ellipse; the frame's counts; pipelines/results_summary.py
# summarises them a second a line):
#   --broker HOST[:PORT]  to the MQTT broker there, topic fastvision/inspection/NAME
#   --publish LOCATION    anywhere metapublish writes: a file, -, mqtt://HOST:PORT/TOPIC
#   (neither: demo-out/inspection.jsonl)
# --name NAME names the stream in the documents (default: inspection-HOSTNAME).
# FRAMES=N stops a camera after N frames (300 by default). FV_PLUGIN_DIR=DIR
# uses a plugin built elsewhere (no install, no build).
set -euo pipefail
cd "$(dirname "$0")/.."
publish="" name="inspection-$(hostname)" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --broker) publish="mqtt://$2/fastvision/inspection/{stream}"; shift 2 ;;
    --publish) publish="$2"; shift 2 ;;
    --name) name="$2"; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) out="$1"; shift ;;
  esac
done
[ -n "$publish" ] || { mkdir -p demo-out; publish=demo-out/inspection.jsonl; }
if [ -z "${FV_PLUGIN_DIR:-}" ]; then
  bash scripts/install-deps.sh
  bash scripts/build.sh
  FV_PLUGIN_DIR=$PWD/build/gst
fi
export GST_PLUGIN_PATH="$FV_PLUGIN_DIR${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
if [ -e /dev/video0 ]; then
  src="v4l2src device=/dev/video0 num-buffers=${FRAMES:-300}"
else
  src="filesrc location=tests/data/parts.webm ! decodebin"
fi
chain="videoconvert ! video/x-raw,format=GRAY8 ! satfilter mode=threshold radius=15 sensitivity=0.15 \
  ! autofill threshold=127 measure=both min-area=20 draw=true \
  ! metapublish location=$publish stream-name=$name ! videoconvert"
echo "measurements: $publish (stream $name)"
if [ -z "$out" ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec gst-launch-1.0 $src ! $chain ! autovideosink
fi
out=${out:-demo-out/inspection.webm}
mkdir -p "$(dirname "$out")"
gst-launch-1.0 -q $src ! $chain ! vp8enc deadline=1 ! webmmux ! filesink location="$out"
echo "inspection line written to $out"
