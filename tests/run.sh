#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds fastvision and runs every test: kernel tests against references,
# CUDA tests (skipped without a GPU), the fuzz targets' replays and the
# GStreamer element tests. Ends with "N passed, N failed, N skipped".
#
#   tests/run.sh              the normal build, in build/
#   tests/run.sh --sanitize   a build with ASan and UBSan (any finding is
#                             fatal), in build-sanitize/; CPU code only
# Other arguments go to meson test (a test name, --suite fuzz, ...).
set -uo pipefail
cd "$(dirname "$0")/.."
builddir=build
if [ "${1:-}" = "--sanitize" ]; then
  shift
  builddir=build-sanitize
fi
bash scripts/install-deps.sh || exit 1
if [ "$builddir" = build ]; then
  bash scripts/build.sh || { echo "0 passed, 1 failed"; exit 1; }
else
  # GStreamer loads the plugin into the test process itself (no scanner
  # helper, which lacks the sanitizer runtime); GLib's and GStreamer's
  # start-up allocations that live until exit are not leaks of ours.
  export GST_REGISTRY_FORK=no
  # and scans only the system plugins the tests use, not whatever else is
  # installed (drivers that some plugins load keep allocations until exit)
  sysdir=$PWD/$builddir/system-plugins
  mkdir -p "$sysdir"
  plugdir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
  for p in coreelements videotestsrc videoconvertscale app playback typefindfunctions \
      matroska vpx png; do
    ln -sf "$plugdir/libgst$p.so" "$sysdir/"
  done
  export GST_PLUGIN_SYSTEM_PATH_1_0=$sysdir
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:fast_unwind_on_malloc=0
  export LSAN_OPTIONS=suppressions=$PWD/tests/sanitize/lsan.supp:print_suppressions=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  if [ ! -f "$builddir/build.ninja" ]; then
    meson setup "$builddir" -Dcuda=disabled -Dbuildtype=debugoptimized \
      -Db_sanitize=address,undefined -Db_lundef=false \
      -Dc_args=-fno-sanitize-recover=all -Dc_link_args=-fno-sanitize-recover=all \
      || { echo "0 passed, 1 failed"; exit 1; }
  fi
  ninja -C "$builddir" || { echo "0 passed, 1 failed"; exit 1; }
fi
start=$(date +%s)
meson test -C "$builddir" --print-errorlogs --num-processes 2 "$@"
rc=$?
log=$builddir/meson-logs/testlog.json
read -r ok fail skip < <(python3 - "$log" <<'PY' 2>/dev/null || echo "0 1 0"
import json, sys
ok = fail = skip = 0
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"): ok += 1
    elif r == "SKIP": skip += 1
    else: fail += 1
print(ok, fail, skip)
PY
)
[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
echo "tests ran in $(( $(date +%s) - start )) s ($builddir)"
echo "$ok passed, $fail failed, $skip skipped"
exit $(( fail > 0 ))
