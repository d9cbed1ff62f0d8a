#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# CPU benchmarks, fastvision and its peers in one run (not run by CI):
#  - SAT build and box filter against OpenCV's integral and blur;
#  - satfilter in a pipeline against gst-plugins-bad's cvsmooth type=blur;
#  - autofill's kernel against OpenCV's reverse floodFill.
# Prints markdown tables for docs/benchmarks.md.   tests/bench/run_cpu.sh [--quick]
source "$(dirname "$0")/cpu_setup.sh"
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(date -u +%F)"
# alternate the two programs and keep each one's best median, so that a
# noisy neighbour on a shared machine hurts neither side more
for round in 1 2; do
  ./build/tests/bench_sat_cpu "$@" >> "$tmp/fv.all"
  /usr/bin/python3 tests/bench/bench_opencv.py "$@" >> "$tmp/cv.all"
done
for f in fv cv; do
  sort -k2,4 -k5,5g "$tmp/$f.all" | awk '!seen[$2" "$3" "$4]++' > "$tmp/$f"
done
echo
echo "| size | format | operation | fastvision ms | OpenCV ms | OpenCV / fastvision |"
echo "|---|---|---|---|---|---|"
join <(awk '{print $2":"$3":"$4, $5}' "$tmp/fv" | sort) <(awk '{print $2":"$3":"$4, $5}' "$tmp/cv" | sort) |
  sort -t: -k1,1 -s | awk '{split($1, k, ":"); sub("blur_r", "box mean, radius ", k[3]);
    printf "| %s | %s | %s | %.3f | %.3f | %.2fx |\n", k[1], k[2], k[3], $2, $3, $3 / $2}'

echo
echo "| pipeline (300 frames 1080p GRAY8, videotestsrc to fakesink) | seconds | fps |"
echo "|---|---|---|"
export GST_PLUGIN_PATH="$PWD/build/gst"
# a plain colour costs the source next to nothing; both filters take the
# same time whatever the content
src="videotestsrc num-buffers=300 pattern=solid-color ! video/x-raw,format=GRAY8,width=1920,height=1080"
run() {
  local label=$1; shift
  local a b
  a=$(date +%s.%N)
  gst-launch-1.0 -q $src ! "$@" ! fakesink
  b=$(date +%s.%N)
  awk -v l="$label" -v a="$a" -v b="$b" 'BEGIN { printf "| %s | %.2f | %.0f |\n", l, b - a, 300 / (b - a) }'
}
run "no filter (source cost)" identity
for r in 15 100; do
  k=$((2 * r + 1))
  run "satfilter radius=$r backend=cpu" satfilter radius=$r backend=cpu border=mirror
  run "cvsmooth type=blur kernel $k" cvsmooth type=blur kernel-width=$k kernel-height=$k
done

echo
echo "| size | frame | autofill kernel ms | OpenCV reverse floodFill ms | OpenCV / fastvision |"
echo "|---|---|---|---|---|"
mkdir -p "$tmp/frames"
for round in 1 2; do
  ./build/tests/bench_fill_cpu "$tmp/frames" "$@" >> "$tmp/ffv.all"
  /usr/bin/python3 tests/bench/bench_opencv_fill.py "$tmp/frames" >> "$tmp/fcv.all"
done
for f in ffv fcv; do
  sort -k2,4 -k5,5g "$tmp/$f.all" | awk '!seen[$2" "$3" "$4]++' > "$tmp/$f"
done
join <(awk '$4 == "fill" {print $2":"$3, $5}' "$tmp/ffv" | sort) \
  <(awk '$4 == "fill" {print $2":"$3, $5}' "$tmp/fcv" | sort) |
  awk '{split($1, k, ":"); printf "| %s | %s | %.3f | %.3f | %.2fx |\n", k[1], k[2], $2, $3, $3 / $2}'
echo
echo "autofill measure (holes; parts and holes) against the fill alone and OpenCV's fill with"
echo "connectedComponentsWithStats on parts and holes (area, box, centroid only):"
echo "| size | frame | fill ms | + holes ms | + parts and holes ms | parts and holes / fill | OpenCV fill + ccstats ms | OpenCV / fastvision |"
echo "|---|---|---|---|---|---|---|---|"
awk 'FNR == NR { if ($4 == "fill+ccstats") cv[$2" "$3] = $5; next }
  { v[$2" "$3" "$4] = $5; if ($4 == "fill") keys[++n] = $2" "$3 }
  END { for (i = 1; i <= n; i++) { k = keys[i]; f = v[k" fill"]; m = v[k" fill+parts+holes"];
    split(k, kk, " ");
    printf "| %s | %s | %.3f | %.3f | %.3f | %.2fx | %s | %s |\n", kk[1], kk[2], f, v[k" fill+holes"], m,
      m / f, (k in cv) ? cv[k] : "-", (k in cv) ? sprintf("%.2fx", cv[k] / m) : "-" } }' \
  "$tmp/fcv" "$tmp/ffv"
