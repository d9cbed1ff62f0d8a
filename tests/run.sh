#!/usr/bin/env bash
# Builds fastvision and runs every test: kernel tests against references,
# CUDA tests (skipped without a GPU) and the GStreamer element tests.
# Ends with "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh || exit 1
bash scripts/build.sh || { echo "0 passed, 1 failed"; exit 1; }
meson test -C build --print-errorlogs --num-processes 2 "$@"
rc=$?
log=build/meson-logs/testlog.json
read -r ok fail skip < <(python3 - "$log" <<'PY' 2>/dev/null || echo "0 1 0"
import json, sys
ok = fail = skip = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"): ok += 1
    elif r == "SKIP": skip += 1
    else: fail += 1
print(ok, fail, skip)
PY
)
[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
echo "$ok passed, $fail failed, $skip skipped"
exit $(( fail > 0 ))
