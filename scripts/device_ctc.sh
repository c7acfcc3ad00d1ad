#!/bin/bash
# device_ctc.sh — the CTC presets and the float model on the GPU host, CPU
# against GPU, whole processes on 16 threads, result files compared at
# --precision max; then cambi alone on adversarial content
# (device_cambi_gen.py) and on the CTC photo pan (device_ctc_gen.py).
# Run there from the bundle: .device/run.sh .device/device_ctc.sh
# (FRAMES: frames of the CTC content, 24; CAMBI_FRAMES: of the cambi
# content, 48; KINDS: the cambi contents). Exits non-zero when a run fails
# or a GPU file differs from the CPU's.
set -uo pipefail
cd "$(dirname "$0")" || exit 2
m=/dev/shm/device_ctc
mkdir -p $m
fail=0
secs() { awk "BEGIN{print $2 - $1}"; }
same() {
  python3 -c "import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); print(a['frames']==b['frames'] and a.get('pooled_metrics')==b.get('pooled_metrics'))" "$1" "$2"
}
# A timed run: label, then twinmaf's arguments; the JSON result goes to $m/$label.json.
run() {
  local label=$1 s0 s1
  shift
  s0=$(date +%s.%N)
  bin/twinmaf "$@" --precision max --json --threads 16 -o "$m/$label.json" > "$m/$label.log" 2>&1 ||
    { echo "FAILED: $label"; tail -3 "$m/$label.log"; fail=1; }
  s1=$(date +%s.%N)
  secs "$s0" "$s1"
}
nvidia-smi --query-gpu=name --format=csv,noheader
python3 device_ctc_gen.py photo.yuv 3840 2160 "${FRAMES:-24}" $m/r.yuv $m/d.yuv || exit 1
io="-r $m/r.yuv -d $m/d.yuv -w 3840 -h 2160 -p 420 -b 8"
printf "%-48s %8s %8s %s\n" "4K, ${FRAMES:-24} frames" cpu_s gpu_s "files equal"
for job in "--aom_ctc v7.0" "--nflx_ctc v1.0" "--model version=vmaf_float_v0.6.1 --feature float_ssim --feature float_psnr"; do
  # shellcheck disable=SC2086
  c=$(run cpu $io $job --backend cpu)
  # shellcheck disable=SC2086
  g=$(run gpu $io $job --backend auto)
  s=$(same $m/cpu.json $m/gpu.json)
  [[ $s == True ]] || fail=1
  printf "%-48s %8s %8s %s\n" "$job" "$c" "$g" "$s"
done
# shellcheck disable=SC2086
bin/twinmaf $io --aom_ctc v7.0 --threads 16 --verbose --profile 2>&1 | grep -E ': (cuda|cpu)|kernel|host CPU|loop|wall' || fail=1
printf "%-12s %-9s %8s %8s %s\n" cambi size cpu_s gpu_s "files equal"
for kind in ${KINDS:-stripes dither areas flat8 ramp8}; do
  f=$m/$kind.yuv
  python3 device_cambi_gen.py "$kind" 3840 2160 "${CAMBI_FRAMES:-48}" "$f" || { fail=1; continue; }
  b=10
  [[ $kind == *8 ]] && b=8
  cio="-r $f -d $f -w 3840 -h 2160 -p 420 -b $b --feature cambi --no_prediction"
  # shellcheck disable=SC2086
  c=$(run cpu $cio --backend cpu)
  # shellcheck disable=SC2086
  g=$(run gpu $cio --backend cuda)
  s=$(same $m/cpu.json $m/gpu.json)
  [[ $s == True ]] || fail=1
  printf "%-12s %-9s %8s %8s %s\n" "$kind" 3840x2160 "$c" "$g" "$s"
  rm -f "$f"
done
exit $fail
