#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Packs what the GPU host needs to run the CUDA test list, in two folders
# that each fit the device tool's 64 MiB (add both to .git/info/exclude):
#   .gpu/   the element tests, the plugin, GStreamer's runtime
#           (../shared/tools/gst-runtime-bundle, nvcodec included) and the
#           cascades the tests read; run there: bash .gpu/run.sh
#   .gpuk/  the kernel tests, the few libraries they need, the cascades;
#           run there: bash .gpuk/run.sh
# from a CUDA build (default build-cuda: meson setup build-cuda -Dcuda=enabled
# -Dcuda-arch=90). Usage: scripts/gpu-bundle.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build-cuda}
bundle=${FV_GST_BUNDLE:-../shared/tools/gst-runtime-bundle}
elements=(test_autofill test_cudamemory test_chunked test_satfilter test_vjdetect
          test_fftconvolve test_conventions test_metapublish test_roitrack)
kernels=(test_box_cuda test_sat test_conv test_vj test_fill test_chunk_run)
cascades=(haarcascades/haarcascade_frontalface_default.xml haarcascades/haarcascade_eye.xml
          haarcascades/haarcascade_eye_tree_eyeglasses.xml haarcascades/haarcascade_frontalface_alt2.xml
          haarcascades/haarcascade_smile.xml haarcascades/haarcascade_upperbody.xml
          lbpcascades/lbpcascade_frontalface.xml lbpcascades/lbpcascade_frontalface_improved.xml)
rm -rf .gpu .gpuk
mkdir -p .gpu/bin .gpu/plugin .gpuk/bin .gpuk/lib
for d in .gpu .gpuk; do
  for c in "${cascades[@]}"; do
    mkdir -p "$d/cascades/$(dirname "$c")"
    cp "/usr/share/opencv4/$c" "$d/cascades/$c"
  done
done
cp "$b/gst/libgstfastvision.so" .gpu/plugin/
for t in "${elements[@]}"; do cp "$b/tests/$t" .gpu/bin/; done
for t in "${kernels[@]}"; do cp "$b/tests/$t" .gpuk/bin/; done
strip --strip-debug .gpu/bin/* .gpu/plugin/*.so .gpuk/bin/*
bash "$bundle" .gpu/gst .gpu/plugin/libgstfastvision.so .gpu/bin/* >/dev/null
ldd .gpuk/bin/* | awk '/=> \//{print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*|libcuda*|libnvidia*) ;;
    *) cp -L "$lib" .gpuk/lib/ ;;
  esac
done
cat > .gpu/run.sh <<'RUN'
source .gpu/gst/env.sh
export GST_PLUGIN_PATH=$PWD/.gpu/plugin FV_CASCADES=$PWD/.gpu/cascades FV_TEST_DATA=$PWD/tests/data
export CK_DEFAULT_TIMEOUT=300
for t in .gpu/bin/*; do echo "== $(basename "$t")"; timeout 500 "$t" 2>&1 | tail -2; done
RUN
cat > .gpuk/run.sh <<'RUN'
export LD_LIBRARY_PATH=$PWD/.gpuk/lib:/usr/local/cuda/lib64 FV_CASCADES=$PWD/.gpuk/cascades
export FV_TEST_DATA=$PWD/tests/data
for t in "test_box_cuda" "test_sat --cuda" "test_conv --cuda" "test_vj --cuda tests/data" \
    "test_fill --cuda tests/data" "test_chunk_run tests/data"; do
  set -- $t; echo "== $t"; timeout 500 ".gpuk/bin/$1" "${@:2}" 2>&1 | tail -1
done
RUN
du -sh .gpu .gpuk
