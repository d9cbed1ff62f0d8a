#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The plugin loads, every CPU path working, on machines without the CUDA
# runtime or driver, whatever it was built with: it links none of the CUDA
# toolkit's or driver's libraries (the runtime is static; the driver, cuFFT
# and NPP are opened at run time), and it loads with the library path
# emptied. Argument: the plugin folder.
set -euo pipefail
plugin=$1/libgstfastvision.so
needed=$(readelf -d "$plugin" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p')
bad=$(grep -E '^lib(cuda|cudart|cufft|npp|nvidia|nvrtc|cublas)' <<<"$needed" || true)
if [ -n "$bad" ]; then
  echo "FAIL: $plugin needs CUDA libraries at load time: $bad"
  exit 1
fi
GST_PLUGIN_PATH=$1 GST_REGISTRY_1_0=$(mktemp -u) LD_LIBRARY_PATH= \
  gst-inspect-1.0 fastvision >/dev/null || { echo "FAIL: the plugin does not load"; exit 1; }
echo "the plugin links no CUDA library ($(grep -c . <<<"$needed") libraries needed)"
