#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Two builds of fastvision on this machine's CPU, alternated in one run (not
# run by CI): for a refactoring, "the kernels and pipelines within noise of
# before". OLD and NEW are source trees, each built in its build/ folder
# (meson setup build && ninja -C build); NEW defaults to this tree.
#
#   tests/bench/run_two_builds.sh OLD_TREE [NEW_TREE] [ROUNDS]
#
# Each round runs both builds' kernel benchmarks (bench_sat_cpu,
# bench_fill_cpu, bench_conv_cpu --quick, bench_vj on 640x480 and 1080p
# frames of a real photo) and gst-launch pipelines of every element,
# old then new, so that a noisy neighbour hurts neither side more; the
# table keeps each case's best time over the rounds and the ratio
# new / old (below 1: the new build is faster). Each build's plugin gets a
# registry of its own.
set -euo pipefail
old=$(realpath "$1")
new=$(realpath "${2:-$(dirname "$0")/../..}")
rounds=${3:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$new/tests/bench/make_vj_frames.py" "$tmp" > /dev/null
cascade=/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml
clip="$new/tests/data/sample-face.webm"

# pipelines: label|launch line between the source and fakesink
pipelines=(
  "satfilter r15, 300 frames 1080p GRAY8|videotestsrc num-buffers=300 pattern=solid-color ! video/x-raw,format=GRAY8,width=1920,height=1080 ! satfilter radius=15"
  "satfilter r15, 100 frames 1080p I420|videotestsrc num-buffers=100 ! video/x-raw,format=I420,width=1920,height=1080 ! satfilter radius=15"
  "fftconvolve sigma 3, 100 frames 720p GRAY8|videotestsrc num-buffers=100 ! video/x-raw,format=GRAY8,width=1280,height=720 ! fftconvolve gaussian-sigma=3"
  "autofill, 200 frames 720p GRAY8|videotestsrc num-buffers=200 pattern=circular ! video/x-raw,format=GRAY8,width=1280,height=720 ! autofill"
  "autofill measure=both, 200 frames 720p GRAY8|videotestsrc num-buffers=200 pattern=circular ! video/x-raw,format=GRAY8,width=1280,height=720 ! autofill measure=both"
  "privacy chain on the sample clip|filesrc location=$clip ! decodebin ! videoconvert ! vjdetect ! roitrack delay=3 ! satfilter roi-type=face"
  "decode alone, the sample clip|filesrc location=$clip ! decodebin ! videoconvert"
)

run_build() {   # TREE TAG: one round of everything, lines "TAG|case|ms"
  local tree=$1 tag=$2 b=$1/build/tests
  "$b/bench_sat_cpu" | awk -v t="$tag" '/^fastvision/ {printf "%s|box/SAT %s %s %s|%s\n", t, $2, $3, $4, $5}'
  "$b/bench_fill_cpu" "$tmp" | awk -v t="$tag" '/^fastvision/ {
    op = $4; for (i = 5; i <= NF && $i !~ /^[0-9.]+$/; i++) op = op " " $i;
    printf "%s|fill %s %s %s|%s\n", t, $2, $3, op, $i}'
  "$b/bench_conv_cpu" --quick | awk -v t="$tag" '/^fastvision/ {printf "%s|conv %s %s %s|%s\n", t, $2, $3, $4, $5}'
  "$b/bench_vj" --iters 5 --min-size 24 "$cascade" "$tmp/faces-vga.pgm" "$tmp/faces-1080p.pgm" |
    awk -v t="$tag" '/^#/ {for (i = 1; i <= NF; i++) if ($i == "ms") ms = $(i - 1);
      printf "%s|detector %s|%s\n", t, $2, ms}'
  for p in "${pipelines[@]}"; do
    local label=${p%%|*} line=${p#*|} a z
    a=$(date +%s%N)
    GST_REGISTRY="$tmp/registry-$tag.bin" GST_PLUGIN_PATH="$tree/build/gst" \
      gst-launch-1.0 -q $line ! fakesink > /dev/null
    z=$(date +%s%N)
    echo "$tag|pipeline: $label|$(( (z - a) / 1000000 ))"
  done
}

echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(date -u +%F)"
echo "# old: $old ($(git -C "$old" rev-parse --short HEAD)), new: $new ($(git -C "$new" rev-parse --short HEAD)), $rounds rounds"
for r in $(seq "$rounds"); do
  run_build "$old" old >> "$tmp/all"
  run_build "$new" new >> "$tmp/all"
done
cp "$tmp/all" "${FV_TWO_BUILDS_RAW:-/dev/null}"
echo
echo "| case | old ms | new ms | new / old |"
echo "|---|---|---|---|"
awk -F'|' '{k = $2; v = $3 + 0; if (!(k in seen)) {order[++n] = k; seen[k] = 1}
  if ($1 == "old" && (!(k in o) || v < o[k])) o[k] = v;
  if ($1 == "new" && (!(k in w) || v < w[k])) w[k] = v}
  END {for (i = 1; i <= n; i++) {k = order[i]
    if ((k in o) && (k in w) && o[k] > 0)
      printf "| %s | %.3f | %.3f | %.2f |\n", k, o[k], w[k], w[k] / o[k]
    else
      printf "| %s | %s | %s | — |\n", k, (k in o) ? o[k] : "—", (k in w) ? w[k] : "—"}}' "$tmp/all"
