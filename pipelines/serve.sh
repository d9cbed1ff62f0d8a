#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Serves processed streams over RTSP, one mount per input (cameras, files or
# rtsp:// URLs): each runs the privacy filter and H.264. docs/deployment.md.
#   pipelines/serve.sh [--address A] [--port 8554] [--width W --height H]
#                      [--user NAME:PASSWORD] [--tls-cert F --tls-key F] [INPUT...]
# With no input (options or not): the sample clip on rtsp://127.0.0.1:8554/cam0.
# pipelines/serve.py --help says the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh gir1.2-gst-rtsp-server-1.0 gstreamer1.0-rtsp \
  gstreamer1.0-plugins-ugly gstreamer1.0-plugins-bad
bash scripts/build.sh
export GST_PLUGIN_PATH="$PWD/build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
exec /usr/bin/python3 pipelines/serve.py "$@"
