#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every source file (C, CUDA, Python, shell, meson) names its licence with
# an SPDX line in its first three lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
missing=0
total=0
while IFS= read -r f; do
  total=$((total + 1))
  if ! head -3 "$f" | grep -q "SPDX-License-Identifier: LGPL-2.1-or-later"; then
    echo "no SPDX line: $f"
    missing=$((missing + 1))
  fi
done < <(git ls-files 2>/dev/null | grep -E '\.(c|h|cu|cuh|py|sh)$|(^|/)meson(_options\.txt|\.build)$|^\.ci/run$' \
           || find . -path ./build -prune -o -type f \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' -o -name '*.py' -o -name '*.sh' -o -name meson.build \) -print)
echo "$total source files, $missing without an SPDX line"
[ "$total" -gt 50 ] && [ "$missing" -eq 0 ]
