#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GST_DEBUG=ELEMENT:LEVEL shows each element's decisions (docs/tuning.md):
# the plans made (size, format, backend, threads, time) at INFO, each frame's
# time at TRACE, fftconvolve's planning (method, time) at INFO and as
# progress messages on the bus. Argument: the plugin folder.
set -euo pipefail
export GST_PLUGIN_PATH=$1 GST_DEBUG_NO_COLOR=1
chain="videotestsrc num-buffers=3 ! video/x-raw,format=GRAY8,width=96,height=64 ! \
  satfilter ! fftconvolve gaussian-sigma=2 ! vjdetect ! autofill ! fakesink"
# the log alone (standard error), then the bus messages alone: gst-launch's
# buffered standard output could otherwise land inside a log line
out=$(GST_DEBUG=satfilter:7,fftconvolve:7,autofill:7,vjdetect:7 gst-launch-1.0 $chain 2>&1 >/dev/null)
bus=$(gst-launch-1.0 -m $chain 2>/dev/null)
fail=0
for e in satfilter fftconvolve autofill vjdetect; do
  grep -qE "INFO +$e .*plans made for 96x64 GRAY8 on the cpu backend" <<<"$out" \
    || { echo "FAIL: $e logs no plans at INFO"; fail=1; }
  [ "$(grep -cE "TRACE +$e .*frame .* in [0-9.]+ ms" <<<"$out")" -ge 3 ] \
    || { echo "FAIL: $e logs no frame times at TRACE"; fail=1; }
done
grep -qE "INFO +fftconvolve .*plane 0: method (separable|fft|direct)" <<<"$out" \
  || { echo "FAIL: fftconvolve does not log its method"; fail=1; }
grep -q "GstMessageProgress, type=(GstProgressType)start, code=(string)plan" <<<"$bus" \
  && grep -q "GstMessageProgress, type=(GstProgressType)complete, code=(string)plan" <<<"$bus" \
  || { echo "FAIL: no progress messages around fftconvolve's planning"; fail=1; }
[ $fail -eq 0 ] && echo "logging: ok"
exit $fail
