#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A plain `meson setup` picks what scripts/build.sh picks and says so: with
# nvcc and no GPU no CUDA (a warning says why), under CI one architecture,
# with a GPU that GPU's architecture only — never every architecture of
# cuda-arch's default. Skipped (77) where there is no nvcc. Argument: the
# source root.
set -euo pipefail
root=$1
[ -d /usr/local/cuda/bin ] && PATH="/usr/local/cuda/bin:$PATH"
command -v nvcc >/dev/null || { echo "no nvcc: nothing to choose"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
meson setup "$dir/b" "$root" -Dtests=disabled >"$dir/log" 2>&1 || { cat "$dir/log"; exit 1; }
archs=$(sed -n 's/^ *CUDA architectures *: *//p' "$dir/log")
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. \r' || true)
if [[ "$cap" =~ ^[0-9]+$ ]]; then want=$cap
elif [ "${CI:-}" = true ]; then want=90
else want=-
fi
if [ "$archs" != "$want" ]; then
  cat "$dir/log"; echo "FAIL: CUDA architectures '$archs', want '$want'"; exit 1
fi
if [ "$want" = - ] && ! grep -q "WARNING: not building CUDA" "$dir/log"; then
  echo "FAIL: no warning says why CUDA is not built"; exit 1
fi
echo "plain meson setup: CUDA architectures $archs"
