#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# How idle OpenMP workers wait (gst/plugin.c): with nothing chosen, libgomp
# starts with the spin count the plugin sets (1000 rounds, libgomp's own
# count for oversubscribed processes) and the variable is gone again from
# the environment; a process that chose (OMP_WAIT_POLICY or GOMP_SPINCOUNT)
# keeps its choice. libgomp says what it started with (OMP_DISPLAY_ENV).
# Argument: the plugin folder.
set -euo pipefail
export GST_PLUGIN_PATH=$1 GST_REGISTRY_1_0=$(mktemp -u)
trap 'rm -f "$GST_REGISTRY_1_0"' EXIT
run() {   # env assignments...: what libgomp printed as it started in the pipeline's process
  env "$@" OMP_DISPLAY_ENV=verbose GST_REGISTRY_FORK=no gst-launch-1.0 -q videotestsrc \
    num-buffers=2 ! video/x-raw,width=64,height=48 ! satfilter threads=2 ! fakesink 2>&1
}
spin() { sed -n "s/.*GOMP_SPINCOUNT = '\([0-9]*\)'.*/\1/p" | head -1; }
fails=0
got=$(run | spin)
if [ "$got" != 1000 ]; then echo "FAIL: nothing chosen: libgomp spins $got rounds, not 1000"; fails=1; fi
got=$(run GOMP_SPINCOUNT=5000 | spin)
if [ "$got" != 5000 ]; then echo "FAIL: GOMP_SPINCOUNT=5000 chosen: libgomp spins $got"; fails=1; fi
out=$(run OMP_WAIT_POLICY=active)
if ! grep -q "OMP_WAIT_POLICY = 'ACTIVE'" <<<"$out" || [ "$(spin <<<"$out")" = 1000 ]; then
  echo "FAIL: OMP_WAIT_POLICY=active chosen, but libgomp did not keep it"; fails=1
fi
# the variable does not outlive the loading: the application's getenv, and
# its later children, see the environment it had
left=$(GST_REGISTRY_FORK=no /usr/bin/python3 -c '
import ctypes, gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
assert Gst.ElementFactory.make("satfilter") is not None
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
print(libc.getenv(b"GOMP_SPINCOUNT"))' 2>&1)
if [ "$left" != None ]; then echo "FAIL: after loading, GOMP_SPINCOUNT is $left"; fails=1; fi
[ $fails -eq 0 ] && echo "libgomp waits as chosen: 1000 rounds by default, the variable gone again, the process's choice otherwise"
exit $fails
