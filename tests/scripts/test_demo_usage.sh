#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# pipelines/demo.sh's arguments: --help and -h print the usage and exit 0
# without installing or building anything; a missing input is one clear
# line and exit 1, before anything is built. Argument: the source root.
set -uo pipefail
demo=$1/pipelines/demo.sh
fail=0
for h in --help -h; do
  out=$(timeout 20 bash "$demo" "$h" 2>&1); rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: demo.sh $h exits $rc"; fail=1; }
  grep -q '^Usage: pipelines/demo.sh' <<<"$out" || { echo "FAIL: demo.sh $h prints no usage: $out"; fail=1; }
  grep -qiE 'meson|ninja|apt-get|Reading package' <<<"$out" && { echo "FAIL: demo.sh $h built or installed"; fail=1; }
done
out=$(timeout 20 bash "$demo" /nonexistent/clip.webm 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "FAIL: a missing input exits $rc"; fail=1; }
[ "$(wc -l <<<"$out")" -eq 1 ] && grep -q "demo: input '/nonexistent/clip.webm' is not a readable file" <<<"$out" \
  || { echo "FAIL: a missing input says: $out"; fail=1; }
out=$(timeout 20 bash "$demo" --bogus 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '--bogus'" <<<"$out" || { echo "FAIL: --bogus: $rc $out"; fail=1; }
[ $fail -eq 0 ] && echo "demo usage: ok"
exit $fail
