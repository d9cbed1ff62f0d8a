#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Removes the CUDA objects of a build folder that are older than a header
# of the source tree, so that the next ninja compiles them again. Meson
# before 1.4 gives nvcc no dependency flags (mesonbuild/meson#11969, fixed
# by #12665), so ninja knows no header of a .cu file: a struct changed in a
# header left objects compiled against its old layout (a box plan read its
# acc64 flag from another field and ran 3.7 times slower, tests passing).
# Conservative: any newer header rebuilds every CUDA object that predates
# it. Usage: scripts/cuda-stale.sh BUILD_DIR (build.sh and gpu-bundle.sh
# call it).
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:?build folder}
[ -d "$b" ] || exit 0
newest=$(find kernels gst tests "$b" -maxdepth 3 \( -name '*.h' -o -name '*.cuh' \) \
  -printf '%T@\n' 2>/dev/null | sort -n | tail -1)
[ -n "$newest" ] || exit 0
n=0
while IFS= read -r -d '' o; do
  if awk -v a="$(stat -c %Y "$o")" -v b="$newest" 'BEGIN { exit !(a < b) }'; then
    rm -f "$o"
    n=$((n + 1))
  fi
done < <(find "$b" -name '*.cu.o' -print0)
[ "$n" -eq 0 ] || echo "cuda-stale: $n CUDA objects older than a header, compiled again"
