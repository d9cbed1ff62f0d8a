#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The embedding apps stop after exactly SECONDS of video: the sample clip
# (25 fps) for 4 s counts at most 100 frames, none reported at 4 s or later.
# Arguments: the C app, the Python app, the clip.
set -euo pipefail
capp=$1 pyapp=$2 clip=$3
fail=0
for app in "$capp" "/usr/bin/python3 $pyapp"; do
  out=$($app "$clip" 4 2>&1) || { echo "$out"; echo "FAIL: $app failed"; fail=1; continue; }
  frames=$(sed -n 's/^done: \([0-9]*\) frames.*/\1/p' <<<"$out")
  if [ "${frames:-0}" -lt 90 ] || [ "$frames" -gt 100 ] || grep -qE '^ *([4-9]|[1-9][0-9]) s:' <<<"$out"; then
    echo "$out" | tail -4; echo "FAIL: $app ran past 4 s of video ($frames frames)"; fail=1
  fi
done
[ $fail -eq 0 ] && echo "apps stop at SECONDS: ok"
exit $fail
