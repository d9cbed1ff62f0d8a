#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what building, testing and the demo need on Debian 12 and 13, and only
# what is missing (apt-get, through sudo when not root).
set -euo pipefail
pkgs=(meson ninja-build pkg-config gcc libc6-dev libglib2.0-dev
      libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
      gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good libfftw3-dev
      opencv-data python3-gi python3-gst-1.0 gir1.2-gst-plugins-base-1.0
      gir1.2-gst-rtsp-server-1.0 gstreamer1.0-rtsp gstreamer1.0-plugins-ugly
      gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-dev
      libjson-glib-dev libmosquitto-dev mosquitto mosquitto-clients python3-numpy python3-scipy
      openssl)
# a CUDA build (nvcc found: scripts/cuda-args.sh) compiles host code with g++,
# which minimal systems (a Debian 13 debootstrap) lack
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  pkgs+=(g++)
fi
pkgs+=("$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
