#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A build without libmosquitto (-Dmqtt=disabled: what a machine without
# libmosquitto-dev gets) builds every element, says so in its summary, and
# metapublish refuses mqtt:// with that reason while files still work.
# Arguments: the source root, a build folder of its own.
set -euo pipefail
root=$1 dir=$2
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "$root" -Dcuda=disabled -Dmqtt=disabled -Dtests=disabled >"$dir.log" 2>&1 \
    || { cat "$dir.log"; echo "FAIL: setup"; exit 1; }
fi
# meson's summary (its log keeps it; the case of the value depends on meson's version)
grep -qiE "MQTT in metapublish \(libmosquitto\) *: (false|no)" "$dir/meson-logs/meson-log.txt" \
  || { echo "FAIL: the summary does not say MQTT is off"; exit 1; }
grep -q "#define FV_HAVE_MOSQUITTO 0" "$dir/fv_config.h" || { echo "FAIL: MQTT built"; exit 1; }
ninja -C "$dir" >"$dir.ninja.log" 2>&1 || { tail -30 "$dir.ninja.log"; echo "FAIL: build"; exit 1; }
export GST_PLUGIN_PATH=$dir/gst GST_REGISTRY_1_0=$dir/registry.bin
for e in satfilter fftconvolve vjdetect autofill metapublish; do
  gst-inspect-1.0 "$e" >/dev/null || { echo "FAIL: no $e"; exit 1; }
done
out=$(gst-launch-1.0 videotestsrc num-buffers=1 ! metapublish location=mqtt://127.0.0.1/t ! \
  fakesink 2>&1 || true)
grep -q "built without libmosquitto" <<<"$out" || { echo "$out"; echo "FAIL: no reason"; exit 1; }
f=$(mktemp)
gst-launch-1.0 -q videotestsrc num-buffers=3 ! metapublish location="$f" ! fakesink
[ "$(wc -l <"$f")" -eq 3 ] || { echo "FAIL: the file has $(wc -l <"$f") documents"; exit 1; }
rm -f "$f"
echo "build without libmosquitto: ok"
