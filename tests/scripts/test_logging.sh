#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GST_DEBUG=ELEMENT:LEVEL shows each element's decisions (docs/tuning.md):
# the plans made (size, format, backend, threads, time) at INFO, each frame's
# time at TRACE, fftconvolve's planning (method, time) at INFO and as
# progress messages on the bus; roitrack's tracks (born, confirmed, ended)
# and fail-closed frames; metapublish's destination, documents and close;
# fvthreads' teams smaller than asked (a budget of cores set to none).
# Passes on a GPU host too (backend=auto picks CUDA there). Argument: the
# plugin folder.
set -uo pipefail
export GST_PLUGIN_PATH=$1 GST_DEBUG_NO_COLOR=1
# the tests' copy of the cascade where FV_CASCADES says (a GPU host has no opencv-data)
cascade=${FV_CASCADES:-/usr/share/opencv4}/haarcascades/haarcascade_frontalface_default.xml
chain="videotestsrc num-buffers=3 ! video/x-raw,format=GRAY8,width=96,height=64 ! \
  satfilter ! fftconvolve gaussian-sigma=2 ! vjdetect cascade=$cascade ! autofill ! fakesink"
# the log alone (standard error), then the bus messages alone: gst-launch's
# buffered standard output could otherwise land inside a log line
out=$(GST_DEBUG=satfilter:7,fftconvolve:7,autofill:7,vjdetect:7 gst-launch-1.0 $chain 2>&1 >/dev/null)
bus=$(gst-launch-1.0 -m $chain 2>/dev/null)
fail=0
for e in satfilter fftconvolve autofill vjdetect; do
  grep -qE "INFO +$e .*plans made for 96x64 GRAY8 on the (cpu|cuda) backend" <<<"$out" \
    || { echo "FAIL: $e logs no plans at INFO"; fail=1; }
  [ "$(grep -cE "TRACE +$e .*frame .* in [0-9.]+ ms" <<<"$out")" -ge 3 ] \
    || { echo "FAIL: $e logs no frame times at TRACE"; fail=1; }
done
grep -qE "INFO +fftconvolve .*plane 0: method (separable|fft|direct)" <<<"$out" \
  || { echo "FAIL: fftconvolve does not log its method"; fail=1; }
grep -q "GstMessageProgress, type=(GstProgressType)start, code=(string)plan" <<<"$bus" \
  && grep -q "GstMessageProgress, type=(GstProgressType)complete, code=(string)plan" <<<"$bus" \
  || { echo "FAIL: no progress messages around fftconvolve's planning"; fail=1; }
# roitrack and metapublish: a face found in each of three frames (the
# astronaut), a frame nobody searched, documents to a file
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=$(cd "$(dirname "$0")/../data" && pwd)
out=$(GST_DEBUG=roitrack:5,metapublish:6 gst-launch-1.0 filesrc location="$data/faces/astronaut.png" \
  ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 ! imagefreeze num-buffers=3 ! \
  vjdetect cascade="$cascade" ! roitrack ! metapublish location="$tmp/d.jsonl" ! fakesink 2>&1 >/dev/null)
grep -qE "DEBUG +roitrack .*track 1 born at" <<<"$out" || { echo "FAIL: roitrack logs no birth"; fail=1; }
grep -qE "INFO +roitrack .*track 1 confirmed" <<<"$out" || { echo "FAIL: roitrack logs no confirmation"; fail=1; }
grep -qE "INFO +metapublish .*documents to \"$tmp/d.jsonl\"" <<<"$out" \
  || { echo "FAIL: metapublish logs not where documents go"; fail=1; }
[ "$(grep -cE "LOG +metapublish .*document of [0-9]+ bytes written" <<<"$out")" -eq 3 ] \
  || { echo "FAIL: metapublish logs not each document"; fail=1; }
grep -qE "INFO +metapublish .*closed: 3 documents delivered, 0 dropped" <<<"$out" \
  || { echo "FAIL: metapublish logs no counts at close"; fail=1; }
out=$(GST_DEBUG=roitrack:5 gst-launch-1.0 videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! \
  roitrack ! fakesink 2>&1 >/dev/null)
[ "$(grep -cE "DEBUG +roitrack .*closed whole: no detector marked it" <<<"$out")" -eq 2 ] \
  || { echo "FAIL: roitrack logs no fail-closed frames"; fail=1; }
# a budget of cores with none free (this user's, shared between processes): said
key=$(printf '%x' $(( (RANDOM << 15 | RANDOM) | 0x40000000 )))
python3 - "$key" <<'PY'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
sem = libc.semget(int(sys.argv[1], 16), 2, 0o1000 | 0o600)   # IPC_CREAT, owner only
class Op(ctypes.Structure):
    _fields_ = [("num", ctypes.c_ushort), ("op", ctypes.c_short), ("flg", ctypes.c_short)]
ops = (Op * 1)(Op(1, 64, 0))   # sized for 64 cores, none free; the semop marks it ready
assert sem >= 0 and libc.semop(sem, ops, 1) == 0
PY
out=$(FASTVISION_SHARE_CORES=1 FASTVISION_CORES_KEY=$key GST_DEBUG=fvthreads:4 gst-launch-1.0 videotestsrc num-buffers=2 ! \
  video/x-raw,format=GRAY8,width=640,height=480 ! satfilter backend=cpu threads=2 ! fakesink 2>&1 >/dev/null)
python3 - "$key" <<'PY'
import ctypes, sys
libc = ctypes.CDLL(None)
libc.semctl(libc.semget(int(sys.argv[1], 16), 2, 0), 0, 0)   # IPC_RMID
PY
grep -qE "INFO +fvthreads .*got 1 of the 2 threads it asked for: the budget of cores had 0 free \(shared by this user's processes" <<<"$out" \
  || { echo "FAIL: a budget of none is silent: $(tail -3 <<<"$out")"; fail=1; }
[ $fail -eq 0 ] && echo "logging: ok"
exit $fail
