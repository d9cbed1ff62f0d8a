#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The plugin loads, every CPU path working, on machines without the CUDA
# runtime or driver, whatever it was built with: it links none of the CUDA
# toolkit's or driver's libraries (the runtime is static; the driver, cuFFT
# and NPP are opened at run time), and it loads with the library path
# emptied. It is one file, links no OpenMP (its CPU threads are its own
# pool, kernels/common/fv_parallel.c) and calls nothing that changes the
# process's environment. Argument: the plugin folder.
set -euo pipefail
plugin="$1/libgstfastvision.so"
extra=$(find "$1" -maxdepth 1 -type f -name "lib*.so*" ! -name libgstfastvision.so -printf "%f " 2>/dev/null || true)
if [ -n "$extra" ]; then
  echo "FAIL: the plugin folder holds more than the plugin: $extra"
  exit 1
fi
if readelf -d "$plugin" | grep -q 'NEEDED.*libgomp'; then
  echo "FAIL: the plugin loads libgomp"
  exit 1
fi
# our own code, not the libraries linked in (CUDA's static runtime
# references setenv): the objects the plugin is made of
objs=$(find "$1" "$1/../kernels" -maxdepth 2 \( -name '*.o' -o -name '*.a' \) 2>/dev/null || true)
[ -n "$objs" ] || { echo "FAIL: no object files of the plugin in $1"; exit 1; }
envcalls=$(for o in $objs; do nm -u "$o" 2>/dev/null; done | awk '{print $NF}' | sed 's/@.*//' \
  | grep -xE 'g_setenv|g_unsetenv|setenv|unsetenv|putenv|clearenv|g_environ_setenv' | sort -u || true)
if [ -n "$envcalls" ]; then
  echo "FAIL: the plugin's code calls $(tr '\n' ' ' <<<"$envcalls")(it must not change the process's environment)"
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
