#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# pipelines/gpu.sh as a user runs it, with the built plugin: it must finish,
# process the clip's frames, and say where it ran; without a GPU it must say
# why and fall back to the CPU. Arguments: the source root, the plugin folder.
set -euo pipefail
root=$1 plugin=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
log=$out/log
FV_PLUGIN_DIR=$plugin bash "$root/pipelines/gpu.sh" "$root/tests/data/sample-face.mp4" \
  "$out/privacy.mp4" >"$log" 2>&1 || { cat "$log"; echo "FAIL: gpu.sh failed"; exit 1; }
cat "$log"
frames=$(sed -n 's/^frames: *\([0-9]*\),.*/\1/p' "$log")
[ "${frames:-0}" -ge 400 ] || { echo "FAIL: $frames frames"; exit 1; }
ls "$out"/privacy.* >/dev/null 2>&1 || { echo "FAIL: no output file"; exit 1; }
if [ -e /dev/nvidia0 ] && gst-inspect-1.0 nvh264dec >/dev/null 2>&1; then
  grep -q '^ran on:   gpu' "$log" || { echo "FAIL: a GPU host ran on the CPU"; exit 1; }
else
  grep -q 'running the same filter on the CPU instead' "$log" || { echo "FAIL: no reason given"; exit 1; }
  grep -q '^ran on:   cpu' "$log" || { echo "FAIL: not on the CPU"; exit 1; }
  ! grep -q 'decoded by nv' "$log" || { echo "FAIL: claims an NVDEC decoder on the CPU path"; exit 1; }
fi
echo "gpu.sh: ok"
