# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the CPU benchmark scripts: from the repository root, with
# OpenCV and its GStreamer elements (the peers) installed, the tree built,
# and $tmp a scratch folder removed at exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bash scripts/install-deps.sh python3-opencv python3-numpy gstreamer1.0-opencv >/dev/null
bash scripts/build.sh >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
