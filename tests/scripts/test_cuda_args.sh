#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# scripts/cuda-args.sh against stub nvcc and nvidia-smi: no GPU means no
# CUDA (unless under CI, then one architecture), a GPU means its own
# architecture only, and no nvcc means no CUDA.
set -uo pipefail
script="$(dirname "$0")/../../scripts/cuda-args.sh"
stubs=$(mktemp -d)
trap 'rm -rf "$stubs"' EXIT
fails=0
expect() {   # expect WHAT WANT [ENV...]
  local what=$1 want=$2
  shift 2
  local got
  got=$(env -i PATH="$stubs/bin:/usr/bin:/bin" "$@" bash "$script" 2>/dev/null)
  if [ "$got" = "$want" ]; then
    echo "ok: $what: $got"
  else
    echo "FAIL: $what: got '$got', want '$want'"
    fails=$((fails + 1))
  fi
}
mkdir -p "$stubs/bin"
# the real /usr/local/cuda would be found: hide it by testing with a PATH
# that only has the stubs when /usr/local/cuda is absent, else skip nvcc-less
if [ ! -d /usr/local/cuda/bin ]; then
  expect "no nvcc" "-Dcuda=disabled"
fi
printf '#!/bin/sh\necho "Cuda compilation tools"\n' > "$stubs/bin/nvcc"
chmod +x "$stubs/bin/nvcc"
printf '#!/bin/sh\nexit 9\n' > "$stubs/bin/nvidia-smi"
chmod +x "$stubs/bin/nvidia-smi"
expect "nvcc, no GPU" "-Dcuda=disabled"
expect "nvcc, no GPU, CI" "-Dcuda=enabled -Dcuda-arch=90" CI=true
printf '#!/bin/sh\necho "9.0"\n' > "$stubs/bin/nvidia-smi"
expect "an H100" "-Dcuda=enabled -Dcuda-arch=90"
printf '#!/bin/sh\necho "8.6"\necho "8.6"\n' > "$stubs/bin/nvidia-smi"
expect "two RTX 30s" "-Dcuda=enabled -Dcuda-arch=86"
echo "$fails failed"
exit $(( fails > 0 ))
