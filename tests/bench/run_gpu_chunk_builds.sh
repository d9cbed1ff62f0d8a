#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench_chunks of several builds on the GPU host, rounds alternating with
# the builds' order swapped each round (the one-GPU whole frame and the
# spread of each, same card, same run). Run from the tree whose kernel
# bundle (scripts/gpu-bundle.sh) is unpacked in .gpuk; OLD_DIR holds other
# builds' bench_chunks as bench_chunks-NAME (built like build-cuda).
#   tests/bench/run_gpu_chunk_builds.sh OLD_DIR ROUNDS DEVICES KERNELS SIZE...
# e.g. OLD_DIR 3 0,0 autofill 16384 32768. FV_ENV_EXTRA: variables for an
# extra column of this build ("FASTVISION_FILL_HOME_HERE=1").
set -u
old=${1:?the folder of the other builds} rounds=${2:-3} devices=${3:-0,0} only=${4:-autofill}
shift 4
export LD_LIBRARY_PATH=$PWD/.gpuk/lib:/usr/local/cuda/lib64 FV_CASCADES=$PWD/.gpuk/cascades
builds=(this)
for b in "$old"/bench_chunks-*; do builds+=("${b##*/bench_chunks-}"); done
[ -n "${FV_ENV_EXTRA:-}" ] && builds+=(extra)
run() {
  case $1 in
    this) .gpuk/bin/bench_chunks --devices "$devices" --only "$only" "${@:2}" ;;
    extra) env $FV_ENV_EXTRA .gpuk/bin/bench_chunks --devices "$devices" --only "$only" "${@:2}" ;;
    *) "$old/bench_chunks-$1" --devices "$devices" --only "$only" "${@:2}" ;;
  esac
}
for ((r = 0; r < rounds; r++)); do
  order=("${builds[@]}")
  if ((r % 2)); then   # swapped every other round
    order=(); for ((i = ${#builds[@]} - 1; i >= 0; i--)); do order+=("${builds[$i]}"); done
  fi
  for b in "${order[@]}"; do
    echo "# round $((r + 1)), $b"
    run "$b" "$@" | grep '^| [a-z]' | grep -v '^| kernel' | sed "s/\$/   $b/"
  done
done
