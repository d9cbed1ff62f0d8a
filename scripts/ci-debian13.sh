#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# CI's Debian 13 leg: the README's two commands (pipelines/demo.sh and
# tests/run.sh), from a clean clone of this checkout's HEAD, inside a
# Debian 13 root made with `debootstrap --variant=minbase trixie`. The root
# is kept between runs in FV_DEBIAN13_ROOT (/var/cache/fastvision/trixie by
# default, outside the clone) and made again when missing; the packages the
# commands install stay in it, so later runs are faster. Needs root (chroot,
# mounts). Ends with tests/run.sh's "N passed, N failed, N skipped" line.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
root=${FV_DEBIAN13_ROOT:-/var/cache/fastvision/trixie}
if [ "$(id -u)" -ne 0 ]; then
  echo "the Debian 13 leg needs root (debootstrap, chroot)"; exit 2
fi
if [ "$(cut -d. -f1 "$root/etc/debian_version" 2>/dev/null)" != 13 ] \
    || [ ! -x "$root/usr/bin/apt-get" ]; then
  if ! command -v debootstrap >/dev/null; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
  fi
  echo "making a Debian 13 root in $root (debootstrap --variant=minbase trixie)"
  rm -rf "$root.new"
  mkdir -p "$(dirname "$root")"
  debootstrap --variant=minbase trixie "$root.new" http://deb.debian.org/debian >"$root.log" 2>&1 \
    || { tail -20 "$root.log"; echo "debootstrap failed"; exit 1; }
  rm -rf "$root"
  mv "$root.new" "$root"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mnt() { mount "$@" && mounted+=("${!#}"); }
mnt -t proc proc "$root/proc"
mnt --bind /dev "$root/dev"
mnt --bind /dev/pts "$root/dev/pts"
mnt -t tmpfs tmpfs "$root/dev/shm"
work=/root/fastvision-ci
rm -rf "$root$work"
git clone -q "$src" "$root$work"
echo "Debian $(cat "$root/etc/debian_version"), a clean clone of $(git -C "$src" rev-parse --short HEAD)"
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 CI="${CI:-}" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  bash -c "cd $work && bash pipelines/demo.sh && bash tests/run.sh"
