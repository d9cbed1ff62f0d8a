#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Prints the meson arguments for CUDA on this machine, for a first build
# that asked for nothing about CUDA:
#   - nvcc and a usable GPU: CUDA for that GPU's architecture only;
#   - nvcc, no GPU, under CI (CI=true): CUDA for one architecture, so that
#     the CUDA code is still compiled and cannot break unnoticed;
#   - otherwise: no CUDA (minutes of nvcc for nothing); -Dcuda=enabled
#     builds it anyway.
# The reason goes to standard error.
set -uo pipefail
[ -d /usr/local/cuda/bin ] && PATH="/usr/local/cuda/bin:$PATH"
if ! command -v nvcc >/dev/null 2>&1; then
  echo "CUDA: no nvcc found, building the CPU paths only" >&2
  echo "-Dcuda=disabled"
  exit 0
fi
cap=""
if command -v nvidia-smi >/dev/null 2>&1; then
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. \r')
fi
if [[ "$cap" =~ ^[0-9]+$ ]]; then
  echo "CUDA: building for this machine's GPU (compute capability $cap)" >&2
  echo "-Dcuda=enabled -Dcuda-arch=$cap"
elif [ "${CI:-}" = true ]; then
  echo "CUDA: no GPU, but under CI: compiling the CUDA code for one architecture (90)" >&2
  echo "-Dcuda=enabled -Dcuda-arch=90"
else
  echo "CUDA: nvcc found but no usable GPU: building without CUDA (-Dcuda=enabled builds it)" >&2
  echo "-Dcuda=disabled"
fi
