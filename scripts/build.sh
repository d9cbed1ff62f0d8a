#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Configures (once) and builds into build/, with the build's progress shown.
# Unless the arguments say something about CUDA, scripts/cuda-args.sh
# decides: CUDA for this machine's GPU, none without one (CI still compiles
# it for one architecture).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
if [ ! -f build/build.ninja ]; then
  cuda=()
  if ! printf '%s\n' "$@" | grep -q -- '-Dcuda'; then
    read -r -a cuda < <(bash scripts/cuda-args.sh)
  fi
  meson setup build "${cuda[@]}" "$@"
elif [ $# -gt 0 ]; then
  meson configure build "$@"
fi
bash scripts/cuda-stale.sh build
ninja -C build
