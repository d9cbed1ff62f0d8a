#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The privacy settings of docs/privacy.md on one NVDEC 1080p H.264 stream in
# CUDA memory: the cost per frame of each chain after the decoder (the
# pipeline's time per frame minus decode alone), and so how many frames a
# second of one stream the elements keep up with (1000 / cost). Run with a
# bundle's env.sh sourced and GST_PLUGIN_PATH set:
#   tests/bench/run_gpu_privacy.sh BENCH_PIPELINE CASCADE CLIP_1080P.mp4
set -euo pipefail
B=${1:?path of bench_pipeline}
cascade=${2:?haarcascade_frontalface_default.xml}
clip=${3:?a 1080p H.264 mp4}
gst-launch-1.0 --version | sed -n 2p
dec="filesrc location=$clip ! qtdemux ! h264parse ! nvh264dec"
vj="vjdetect cascade=$cascade backend=cuda post-messages=false"
blur="satfilter roi-type=face radius=12 backend=cuda ! fakesink name=sink"
b() { "$B" -r 3 -w 50 "$1" "$dec ! $2 ! $blur" "$dec ! fakesink name=sink" 2>&1 \
  | grep -v XDG_RUNTIME_DIR || echo "$1: failed"; }
b "vjdetect ! satfilter" "$vj"
b "vjdetect ! roitrack delay=4 ! satfilter" "$vj ! roitrack delay=4 post-messages=false"
b "vjdetect angles=-30,-15,0,15,30 ! roitrack delay=4" \
  "$vj angles=-30,-15,0,15,30 ! roitrack delay=4 post-messages=false"
for k in 4 8; do for a in 1 2; do
  b "vjdetect angles=-30,-15,0,15,30 turned-interval=$k turned-agreement=$a ! roitrack delay=4" \
    "$vj angles=-30,-15,0,15,30 turned-interval=$k turned-agreement=$a ! roitrack delay=4 post-messages=false"
done; done
for e in 0.25 0.45; do
  b "vjdetect angles=-30,-15,0,15,30 turned-interval=4 turned-edge=$e ! roitrack delay=4" \
    "$vj angles=-30,-15,0,15,30 turned-interval=4 turned-edge=$e ! roitrack delay=4 post-messages=false"
done
