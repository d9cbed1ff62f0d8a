#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What loading the plugin and running its CPU kernels does to the process
# (kernels/common/fv_parallel.c, gst/elements/plugin.c): the environment is the one
# the application had (loading sets and removes nothing); no worker thread
# exists before a frame needs one; after frames, the workers (named
# fv-worker) are at most the team asked less the calling thread; and once
# the pipeline is idle they sleep: the process uses almost no CPU time
# over a second of waiting (workers that spun would use about a second
# each). Argument: the plugin folder.
set -euo pipefail
export GST_PLUGIN_PATH=$1 GST_REGISTRY_1_0=$(mktemp -u)
trap 'rm -f "$GST_REGISTRY_1_0"' EXIT
GST_REGISTRY_FORK=no /usr/bin/python3 - <<'PY'
import ctypes, os, resource, sys, time
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst

libc = ctypes.CDLL(None)
environ = ctypes.POINTER(ctypes.c_char_p).in_dll(libc, "environ")

def env():
    out, i = [], 0
    while environ[i]:
        out.append(environ[i])
        i += 1
    return sorted(out)

def workers():
    names = []
    for t in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/comm" % t) as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return names.count("fv-worker")

fails = 0
before = env()
Gst.init(None)
if Gst.ElementFactory.make("satfilter") is None:
    print("FAIL: the plugin does not load"); sys.exit(1)
if env() != before:
    print("FAIL: loading the plugin changed the environment: %s" % (set(env()) ^ set(before)))
    fails += 1
if workers() != 0:
    print("FAIL: %d workers started before any frame" % workers())
    fails += 1
p = Gst.parse_launch("videotestsrc num-buffers=30 ! video/x-raw,format=GRAY8,width=640,"
                     "height=480 ! satfilter threads=3 radius=5 ! fakesink")
p.set_state(Gst.State.PLAYING)
msg = p.get_bus().timed_pop_filtered(60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
if msg is None or msg.type != Gst.MessageType.EOS:
    print("FAIL: the pipeline did not reach EOS: %s" % (msg and msg.parse_error()))
    fails += 1
n = workers()
if not 1 <= n <= 2:
    print("FAIL: %d workers after frames of a team of 3 (1 or 2 expected)" % n)
    fails += 1
time.sleep(0.2)   # past the spin
r0 = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.monotonic()
time.sleep(1.0)
r1 = resource.getrusage(resource.RUSAGE_SELF)
wall = time.monotonic() - t0
cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
if cpu > 0.1 * wall:
    print("FAIL: idle, the process used %.3f s of CPU in %.2f s (workers spin)" % (cpu, wall))
    fails += 1
if env() != before:
    print("FAIL: running frames changed the environment")
    fails += 1
p.set_state(Gst.State.NULL)
if not fails:
    print("the environment untouched, %d workers started by the first frame, idle CPU %.3f s in "
          "%.2f s" % (n, cpu, wall))
sys.exit(1 if fails else 0)
PY
