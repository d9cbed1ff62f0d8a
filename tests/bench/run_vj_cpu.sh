#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# vjdetect on the CPU against its peers, in one run (not run by CI):
#  - the kernel (bench_vj) against OpenCV's CascadeClassifier.detectMultiScale
#    (python3-opencv, all cores) on 640x480, 1080p and 4K frames made from a
#    real photo, scale 1.1, min neighbours 3, min size 24, the two alternated;
#  - the same at 1080p for LBP and tree cascades;
#  - the element's fps on the sample clip (as it is, and scaled to 640x480)
#    against gst-plugins-bad's facedetect at equal settings, both on RGB
#    after the same decoder.
# Prints markdown tables for docs/benchmarks.md.   tests/bench/run_vj_cpu.sh
source "$(dirname "$0")/cpu_setup.sh"
/usr/bin/python3 tests/bench/make_vj_frames.py "$tmp"
cascade=/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml
frames="$tmp/faces-vga.pgm $tmp/faces-1080p.pgm $tmp/faces-4k.pgm"
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(date -u +%F)"
# OpenCV's side: opencv.py REPS CASCADE FRAME..., printed as bench_vj prints
cat > "$tmp/opencv.py" <<'PY'
import cv2, sys, time
reps, cc = int(sys.argv[1]), cv2.CascadeClassifier(sys.argv[2])
for path in sys.argv[3:]:
    g = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    boxes = cc.detectMultiScale(g, 1.1, 3, minSize=(24, 24))
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        boxes = cc.detectMultiScale(g, 1.1, 3, minSize=(24, 24))
        t.append((time.perf_counter() - t0) * 1e3)
    print('# %s %dx%d: %d boxes, %.3f ms' % (path.split('/')[-1], g.shape[1], g.shape[0],
          len(boxes), sorted(t)[len(t) // 2]))
PY
for round in 1 2 3; do
  ./build/tests/bench_vj --iters 5 --min-size 24 $cascade $frames >> "$tmp/fv.all"
  /usr/bin/python3 "$tmp/opencv.py" 5 "$cascade" $frames >> "$tmp/cv.all"
done
# best median of the rounds, per frame
best() { awk '{sub(":", "", $2); for (i = 3; i <= NF; i++) if ($(i + 1) == "ms") t = $i;
  n = ($2 in b) ? b[$2] : 1e30; if (t < n) b[$2] = t; sub(":", "", $3); size[$2] = $3; boxes[$2] = $4}
  END {for (k in b) print k, size[k], boxes[k], b[k]}' "$1" | sort; }
echo
echo "| frame | boxes (ours / OpenCV) | fastvision ms | OpenCV ms | OpenCV / fastvision |"
echo "|---|---|---|---|---|"
join <(best "$tmp/fv.all") <(best "$tmp/cv.all") | sort -k2,2 -t' ' -g |
  awk '{printf "| %s | %s / %s | %.1f | %.1f | %.2fx |\n", $2, $3, $6, $4, $7, $7 / $4}'

echo
echo "| cascade (1080p frame) | boxes (ours / OpenCV) | fastvision ms | OpenCV ms | OpenCV / fastvision |"
echo "|---|---|---|---|---|"
for c in lbpcascades/lbpcascade_frontalface lbpcascades/lbpcascade_frontalface_improved \
    haarcascades/haarcascade_frontalface_alt2 haarcascades/haarcascade_eye_tree_eyeglasses; do
  path=/usr/share/opencv4/$c.xml
  rm -f "$tmp/fvc.all" "$tmp/cvc.all"
  for round in 1 2; do
    ./build/tests/bench_vj --iters 3 --min-size 24 $path "$tmp/faces-1080p.pgm" >> "$tmp/fvc.all"
    /usr/bin/python3 "$tmp/opencv.py" 3 "$path" "$tmp/faces-1080p.pgm" >> "$tmp/cvc.all"
  done
  join <(best "$tmp/fvc.all") <(best "$tmp/cvc.all") |
    awk -v c="$(basename $c)" '{printf "| %s | %s / %s | %.1f | %.1f | %.2fx |\n", c, $3, $6, $4, $7, $7 / $4}'
done

export GST_PLUGIN_PATH="$PWD/build/gst"
run() {
  local label=$1 src=$2; shift 2
  local a b
  a=$(date +%s.%N)
  gst-launch-1.0 -q $src ! "$@" ! fakesink sync=false >/dev/null 2>&1
  b=$(date +%s.%N)
  echo "$label $(echo "$b - $a" | bc)"
}
# the clip as it is, and scaled to 640x480 (the size of the goal)
clip="filesrc location=tests/data/sample-face.webm ! decodebin ! videoconvert"
for size in 400x300 640x480; do
  src="$clip ! videoscale ! video/x-raw,format=RGB,width=${size%x*},height=${size#*x}"
  rm -f "$tmp/pipe" "$tmp/ratios"
  for round in 1 2 3 4; do
    d=$(run "decode-only" "$src" identity | tee -a "$tmp/pipe" | cut -d' ' -f2)
    v=$(run "vjdetect" "$src" vjdetect backend=cpu min-size-width=24 min-size-height=24 |
        tee -a "$tmp/pipe" | cut -d' ' -f2)
    f=$(run "facedetect" "$src" facedetect display=false min-size-width=24 min-size-height=24 \
        scale-factor=1.1 min-neighbors=3 profile=$cascade | tee -a "$tmp/pipe" | cut -d' ' -f2)
    # the ratio within a round: the shared machine's speed drifts between rounds
    echo "($f - $d) / ($v - $d)" | bc -l >> "$tmp/ratios"
  done
  echo
  echo "| pipeline (sample-face.webm, 1316 frames $size, decode to RGB) | seconds (best of 4) | fps | ms a frame less decoding |"
  echo "|---|---|---|---|"
  sort -k1,1 -k2,2g "$tmp/pipe" | awk '!seen[$1]++ {t[$1] = $2; order[++n] = $1}
    END {for (i = 1; i <= n; i++) {k = order[i]; printf "| %s | %.2f | %.0f | %.2f |\n", k, t[k], 1316 / t[k],
      (t[k] - t["decode-only"]) * 1000 / 1316}}'
  echo
  sort -g "$tmp/ratios" | awk '{r[NR] = $1} END {printf "facedetect / vjdetect, cost a frame less decoding, round by round: %.2fx to %.2fx, median %.2fx\n", r[1], r[NR], (r[int((NR + 1) / 2)] + r[int(NR / 2) + 1]) / 2}'
done
