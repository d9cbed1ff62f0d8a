#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The licence is declared build by build: linked with FFTW (GPL-2+) the
# plugin says GPL; built with -Dfft=gstfft (GStreamer's FFT library, LGPL)
# it links no FFTW, says LGPL, and its convolution passes the same tests
# against the reference (test_conv, the fftconvolve element test).
# Arguments: the source root, the main build's plugin folder, a build folder
# of its own.
set -euo pipefail
export FV_TEST_DATA=$1/tests/data
root=$1 main_plugin=$2 dir=$3
licence() { GST_PLUGIN_PATH=$1 GST_REGISTRY_1_0=$(mktemp -u) gst-inspect-1.0 fastvision \
  | sed -n 's/^ *License *//p'; }
fftw_linked=$(readelf -d "$main_plugin/libgstfastvision.so" | grep -c 'libfftw3f' || true)
main_lic=$(licence "$main_plugin")
if [ "$fftw_linked" -gt 0 ] && [ "$main_lic" != GPL ]; then
  echo "FAIL: linked with FFTW but the plugin says $main_lic"; exit 1
fi
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "$root" -Dfft=gstfft -Dcuda=disabled >"$dir.log" 2>&1 \
    || { cat "$dir.log"; echo "FAIL: setup"; exit 1; }
fi
ninja -C "$dir" gst/libgstfastvision.so tests/test_conv tests/test_fftconvolve >"$dir.ninja.log" 2>&1 \
  || { tail -30 "$dir.ninja.log"; echo "FAIL: build"; exit 1; }
if readelf -d "$dir/gst/libgstfastvision.so" | grep -q libfftw3f; then
  echo "FAIL: the gstfft build links FFTW"; exit 1
fi
lic=$(licence "$dir/gst")
[ "$lic" = LGPL ] || { echo "FAIL: the gstfft build says $lic"; exit 1; }
FV_TEST_DATA=$root/tests/data "$dir/tests/test_conv" | tail -1
GST_PLUGIN_PATH=$dir/gst GST_REGISTRY_1_0=$(mktemp -u) CK_DEFAULT_TIMEOUT=300 \
  FV_TEST_DATA=$root/tests/data "$dir/tests/test_fftconvolve" | tail -1
echo "licences: $main_lic with FFTW, LGPL with GStreamer's FFT library"
