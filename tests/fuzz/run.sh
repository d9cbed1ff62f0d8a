#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fuzzes the parsers of what users hand us (cascades, kernel files, kernel
# grids) with libFuzzer, ASan and UBSan, for SECONDS in all (split evenly
# between the targets named, or all three; default 60):
#   tests/fuzz/run.sh 1800
#   tests/fuzz/run.sh 600 cascade
# Builds with clang into build-fuzz/. New interesting inputs collect in
# build-fuzz/corpus/TARGET; a crash leaves build-fuzz/crashes/TARGET-* and
# fails the run: fix it, then add the file to tests/fuzz/regressions/TARGET
# so that every test run replays it.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}
shift || true
bash scripts/install-deps.sh clang libclang-rt-14-dev libomp-14-dev
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang meson setup build-fuzz -Dfuzzing=true -Dcuda=disabled -Dtests=enabled \
    -Dbuildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args=-fno-sanitize-recover=all -Dc_link_args=-fno-sanitize-recover=all
fi
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(cascade kernel grid)
ninja -C build-fuzz "${targets[@]/#/tests/fuzz/fuzz_}"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitize/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
declare -A max_len=([cascade]=16384 [kernel]=4096 [grid]=2048)
per=$(( (secs + ${#targets[@]} - 1) / ${#targets[@]} ))
status=0
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t
  mkdir -p "$corpus" build-fuzz/crashes
  dict=()
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  echo "== fuzz_$t for $per s"
  if ! ./build-fuzz/tests/fuzz/fuzz_$t "$corpus" tests/fuzz/corpus/$t tests/fuzz/regressions/$t \
      -max_total_time="$per" -max_len="${max_len[$t]}" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="build-fuzz/crashes/$t-" "${dict[@]}" \
      2>&1 | tee "build-fuzz/fuzz-$t.log" | grep -E "^(#[0-9]+ +(INITED|DONE)|Done|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY)"; then
    :
  fi
  if ls build-fuzz/crashes/$t-* >/dev/null 2>&1; then
    echo "fuzz_$t: crash found, see build-fuzz/crashes/ and build-fuzz/fuzz-$t.log"
    status=1
  fi
done
exit $status
