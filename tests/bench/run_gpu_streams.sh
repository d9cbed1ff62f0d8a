#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Many cameras on one GPU (issue #24): N NVDEC branches of one 1080p H.264
# clip in one process (bench_streams), decode only and with the privacy
# filter (vjdetect ! satfilter roi-type=face), for N in NS; the privacy
# filter also as N processes for N in PROCS; nvidia-smi dmon's SM and
# decoder load during each privacy run. Run with a bundle's env.sh sourced
# and GST_PLUGIN_PATH set:
#   tests/bench/run_gpu_streams.sh BENCH_STREAMS CASCADE CLIP_1080P_MP4
set -uo pipefail
B=${1:?bench_streams} casc=${2:?cascade} clip=${3:?1080p H.264 mp4}
dec="filesrc location=$clip ! qtdemux ! h264parse ! nvh264dec"
priv="$dec ! vjdetect cascade=$casc backend=cuda ! satfilter roi-type=face radius=12 backend=cuda"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
gst-launch-1.0 --version | sed -n 2p
load() {   # dmon's samples while the command runs: mean SM and decoder %
  local f; f=$(mktemp)
  nvidia-smi dmon -s u -d 1 >"$f" 2>/dev/null &
  local dm=$!
  "$@"
  kill $dm 2>/dev/null; wait $dm 2>/dev/null
  awk '$1 !~ /#/ && NF > 4 {sm+=$2; d+=$5; k++} END {if (k) printf "    load: SM %.0f%%, NVDEC %.0f%% (mean of %d s)\n", sm/k, d/k, k}' "$f"
  rm -f "$f"
}
for n in ${NS:-1 2 4 8 16 32}; do
  "$B" -w 30 "$n" "$dec" | sed 's/^/decode only     /'
  load bash -c "\"$B\" -w 30 $n \"$priv\" | sed 's/^/privacy filter  /'"
done
for n in ${PROCS:-4 8}; do
  t0=$(date +%s.%N)
  for _ in $(seq "$n"); do "$B" -w 30 1 "$priv" > /tmp/proc.$$.$_ & done
  wait
  awk -v n="$n" -v t="$(python3 -c "import time; print(time.time() - $t0)")" '{for (i=1;i<=NF;i++) if ($i=="total") s+=$(i+1)} END {printf "privacy filter, %d processes: total %.1f fps (each timed alone), wall %.1f s\n", n, s, t}' /tmp/proc.$$.*
  rm -f /tmp/proc.$$.*
done
