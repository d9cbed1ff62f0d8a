#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Soak test: the full live chain on the looped sample clip for MINUTES
# (default 10), RSS sampled every 30 s, failing on growth past the first
# minute. Not part of tests/run.sh (it takes minutes by design).
#   tests/soak.sh 60
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh python3-gi python3-gst-1.0 gir1.2-gst-plugins-base-1.0
bash scripts/build.sh
export GST_PLUGIN_PATH="$PWD/build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
# Debian's python3, which has PyGObject (not a virtualenv's or pyenv's)
exec /usr/bin/python3 tests/soak.py "${1:-10}" "${2:-tests/data/sample-face.webm}"
