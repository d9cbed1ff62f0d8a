#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The plugin loads, every CPU path working, on machines without the CUDA
# runtime or driver, whatever it was built with: it links none of the CUDA
# toolkit's or driver's libraries (the runtime is static; the driver, cuFFT
# and NPP are opened at run time), and it loads with the library path
# emptied. The plugin itself links no OpenMP (gst/plugin.c chooses libgomp's
# waiting before the elements' file loads it). Argument: the plugin folder.
set -euo pipefail
plugin="$1/libgstfastvision.so $1/libfastvision-elements.so.0"
if readelf -d "$1/libgstfastvision.so" | grep -q 'NEEDED.*libgomp'; then
  echo "FAIL: the plugin itself loads libgomp, before it can choose how its workers wait"
  exit 1
fi
needed=$(for f in $plugin; do readelf -d "$f"; done | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | sort -u)
bad=$(grep -E '^lib(cuda|cudart|cufft|npp|nvidia|nvrtc|cublas)' <<<"$needed" || true)
if [ -n "$bad" ]; then
  echo "FAIL: $plugin needs CUDA libraries at load time: $bad"
  exit 1
fi
GST_PLUGIN_PATH=$1 GST_REGISTRY_1_0=$(mktemp -u) LD_LIBRARY_PATH= \
  gst-inspect-1.0 fastvision >/dev/null || { echo "FAIL: the plugin does not load"; exit 1; }
echo "the plugin links no CUDA library ($(grep -c . <<<"$needed") libraries needed)"
