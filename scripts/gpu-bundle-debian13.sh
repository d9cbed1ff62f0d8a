#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The GPU host's bundle for GStreamer 1.26 (Debian 13), in .gpu126/: the
# plugin and the CUDA element tests built inside the Debian 13 root of CI's
# second leg (scripts/ci-debian13.sh makes it) against Debian 13's own
# GStreamer 1.26 packages, with this machine's CUDA toolkit bound in, then
# packed by scripts/gpu-bundle.sh with FV_BUNDLE_LIBC=1: Debian 13's C
# library comes along, since the GPU host's is older. Trimmed to what the
# GPU tests use so that it travels within the device tool's 64 MiB (MQTT is
# left out of this build; the GPU host has no broker). On the GPU host:
#   mv .gpu126 .gpu && bash .gpu/run.sh
# (Debian 13's source packages were not reachable from here, so its binary
# packages are used; docs/testing.md.) Needs root. Usage:
#   scripts/gpu-bundle-debian13.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
root=${FV_DEBIAN13_ROOT:-/var/cache/fastvision/trixie}
cuda=${CUDA_HOME:-/usr/local/cuda}
[ "$(id -u)" -eq 0 ] || { echo "needs root (chroot, mounts)"; exit 2; }
[ -x "$cuda/bin/nvcc" ] || { echo "no CUDA toolkit in $cuda"; exit 2; }
if [ "$(cut -d. -f1 "$root/etc/debian_version" 2>/dev/null)" != 13 ]; then
  echo "no Debian 13 root in $root: run scripts/ci-debian13.sh (CI's second leg) first"
  exit 2
fi
bundler=${FV_GST_BUNDLE:-$src/../shared/tools/gst-runtime-bundle}
mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mnt() { mount "$@" && mounted+=("${!#}"); }
cp /etc/resolv.conf "$root/etc/resolv.conf"
mnt -t proc proc "$root/proc"
mnt --bind /dev "$root/dev"
mnt --bind /dev/pts "$root/dev/pts"
mkdir -p "$root/usr/local/cuda" "$root/root/tools"
mnt --bind -o ro "$cuda" "$root/usr/local/cuda"
cp "$bundler" "$root/root/tools/gst-runtime-bundle"
work=/root/fastvision-gpu
mkdir -p "$root$work"
# the working tree as it is (tracked and untracked), over the last build
git -C "$src" ls-files -co --exclude-standard -z | tar -C "$src" --null -T - -cf - \
  | tar -C "$root$work" -xf -
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
  PATH=/usr/local/cuda/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -c "
    set -e; cd $work
    bash scripts/install-deps.sh binutils file >/dev/null
    [ -d build-cuda ] || meson setup build-cuda -Dcuda=enabled -Dcuda-arch=90 -Dmqtt=disabled >/dev/null
    ninja -C build-cuda >/dev/null
    FV_BUNDLE_LIBC=1 FV_GST_BUNDLE=/root/tools/gst-runtime-bundle bash scripts/gpu-bundle.sh build-cuda"
rm -rf "$src/.gpu126"
cp -a "$root$work/.gpu" "$src/.gpu126"
cd "$src/.gpu126"
# what the GPU tests do not use
find cascades -name '*.xml' ! -name haarcascade_frontalface_default.xml \
  ! -name lbpcascade_frontalface_improved.xml ! -name haarcascade_eye.xml -delete
# (test_many_streams decodes the VP8 clip, whose decoder is left out below
# for size: it runs in the 1.22 bundle)
for t in test_metapublish test_conventions test_conventions_errors test_roitrack test_roitrack_failclosed test_many_streams; do
  rm -f "bin/$t" "bin/.real/$t"
done
rm -f gst/plugins/libgstvpx.so gst/lib/libvpx.so.* gst/plugins/libgstjpeg.so gst/lib/libjpeg.so.* \
  gst/plugins/libgstmultifile.so gst/plugins/libgsty4menc.so
du -sh "$src/.gpu126"
