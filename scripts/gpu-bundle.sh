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
# FV_BUNDLE_LIBC=1: the binaries come from a newer Debian than the GPU
# host's (Debian 13's GStreamer 1.26, built in its root: docs/testing.md),
# so its C library and loader come along and every program in .gpu starts
# through that loader; GStreamer then scans plugins in-process
# (GST_REGISTRY_FORK=no), since its scanner would start with the host's.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build-cuda}
bash scripts/cuda-stale.sh "$b"   # nvcc's objects know no headers (meson < 1.4)
ninja -C "$b" >/dev/null
bundle=${FV_GST_BUNDLE:-../shared/tools/gst-runtime-bundle}
elements=(test_autofill test_cudamemory test_chunked test_satfilter test_vjdetect test_vjdetect_changes
          test_fftconvolve test_conventions test_conventions_errors test_metapublish test_roitrack test_roitrack_failclosed test_stream_ordered
          test_many_streams test_fvfilter bench_pipeline bench_streams)
kernels=(test_box test_sat test_conv test_vj test_vj_turned test_vj_group test_fill test_chunk_run test_chunk_run_fill test_cuda_wait test_cores
         test_pool bench_sat_cpu bench_conv_cpu bench_vj bench_chunks bench_fill_cuda probe_conv_bands bench_fill_cpu)
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
strip --strip-unneeded .gpu/bin/* .gpuk/bin/*; strip --strip-debug .gpu/plugin/*
bash "$bundle" .gpu/gst imagefreeze videocrop videobox .gpu/plugin/* .gpu/bin/* >/dev/null
if [ "${FV_BUNDLE_LIBC:-0}" = 1 ]; then
  # in a folder of their own, named only by the wrappers: on LD_LIBRARY_PATH
  # they (and the bundle's other libraries, built against them) would be
  # loaded by the host's own programs (its shell, ls) and break them
  mkdir -p .gpu/gst/libc
  for l in libc.so.6 libm.so.6 libmvec.so.1 libpthread.so.0 libdl.so.2 librt.so.1 \
      libresolv.so.2 libstdc++.so.6 libgcc_s.so.1; do
    f=$(ldconfig -p | awk -v l="$l" '$1==l && /x86-64/ && !f {print $NF; f=1}')
    [ -n "$f" ] && cp -L "$f" .gpu/gst/libc/
  done
  cp -L /lib64/ld-linux-x86-64.so.2 .gpu/gst/libc/
  for dir in .gpu/gst/bin .gpu/bin; do
    mkdir -p "$dir/.real"
    rel=$(realpath --relative-to="$dir" .gpu/gst/libc)
    rlib=$(realpath --relative-to="$dir" .gpu/gst/lib)
    for f in "$dir"/*; do
      [ -f "$f" ] || continue
      n=$(basename "$f")
      mv "$f" "$dir/.real/$n"
      printf '#!/bin/sh\nd=$(cd "$(dirname "$0")" && pwd)\nexec "$d/%s/ld-linux-x86-64.so.2" --library-path "$d/%s:$d/%s:$LD_LIBRARY_PATH" --argv0 "$0" "$d/.real/%s" "$@"\n' \
        "$rel" "$rel" "$rlib" "$n" > "$f"
      chmod +x "$f"
    done
  done
  sed -i 's|^export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"|# the wrappers name the libraries|' .gpu/gst/env.sh
  echo 'export GST_REGISTRY_FORK=no' >> .gpu/gst/env.sh
fi
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
# the registry first, in a process of its own: a scan inside a test program
# (GST_REGISTRY_FORK=no in a FV_BUNDLE_LIBC bundle) would start CUDA through
# nvcodec before check forks its cases, and CUDA does not survive a fork
gst-inspect-1.0 >/dev/null 2>&1
# every test at once, as many as the host has cores (meson test's default),
# each with its own log; 77 is a skip; the end is "N passed, N failed, N skipped"
logs=${OUT:-/tmp}/gpu-logs; mkdir -p "$logs"
{ for t in .gpu/bin/test_*; do echo "$t"; done
  echo "bash tests/scripts/test_logging.sh $PWD/.gpu/plugin"; } |
  xargs -P "$(nproc)" -I{} bash -c 'n=$(basename "${1%% *}"); [ "$n" = bash ] && n=test_logging;
    timeout 500 $1 >"$2/$n.log" 2>&1; echo "$n $?" >>"$2/rc"' _ {} "$logs"
pass=0 fail=0 skip=0
while read -r n rc; do
  case $rc in 0) pass=$((pass+1));; 77) skip=$((skip+1)); echo "== $n skipped: $(tail -1 "$logs/$n.log")";;
    *) fail=$((fail+1)); echo "== $n FAILED ($rc):"; tail -15 "$logs/$n.log";; esac
done < "$logs/rc"
for f in "$logs"/*.log; do echo "== $(basename "$f" .log): $(tail -1 "$f")"; done
echo "elements: $pass passed, $fail failed, $skip skipped"
RUN
cat > .gpuk/run.sh <<'RUN'
export LD_LIBRARY_PATH=$PWD/.gpuk/lib:/usr/local/cuda/lib64 FV_CASCADES=$PWD/.gpuk/cascades
export FV_TEST_DATA=$PWD/tests/data
logs=${OUT:-/tmp}/gpuk-logs; mkdir -p "$logs"
{ for t in "test_box --cuda" "test_sat --cuda" "test_conv --cuda" "test_vj --cuda tests/data" "test_vj_turned --cuda tests/data" \
    "test_fill --cuda tests/data" "test_chunk_run tests/data" "test_chunk_run_fill tests/data" "test_cores" "test_pool"; do echo "$t"; done
  # the CPU kernels on the host's many cores (the worker pool's teams at that size)
  for t in "test_fill tests/data" "test_conv" "test_vj tests/data" "test_vj_turned tests/data" "test_vj_group" "test_box tests/data"; do
    echo "ON_CPU=1 $t"; done
  for spin in 0 50 -1; do echo "FASTVISION_CUDA_SPIN_US=$spin test_cuda_wait"; done; } |
  xargs -P "$(nproc)" -I{} bash -c 'l=$2; set -- $1; env=; case $1 in *=*) env=$1; shift;; esac;
    n=$1${env:+-${env#*=}}; env $env timeout 500 ".gpuk/bin/$1" "${@:2}" >"$l/$n.log" 2>&1;
    echo "$n $?" >>"$l/rc"' _ {} "$logs"
pass=0 fail=0 skip=0
while read -r n rc; do
  case $rc in 0) pass=$((pass+1));; 77) skip=$((skip+1));;
    *) fail=$((fail+1)); echo "== $n FAILED ($rc):"; tail -15 "$logs/$n.log";; esac
done < "$logs/rc"
for f in "$logs"/*.log; do echo "== $(basename "$f" .log): $(tail -1 "$f")"; done
echo "kernels: $pass passed, $fail failed, $skip skipped"
RUN
du -sh .gpu .gpuk
