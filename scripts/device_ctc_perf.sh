#!/bin/bash
# device_ctc_perf.sh — the CTC presets and the float model at 4K and 1080p on
# the GPU host, FRAMES (480) frames of device_ctc_gen.py's content: twinmaf
# --backend cpu and --backend auto on 16 threads, whole processes, result
# files compared at --precision max; with LIBVMAF=<path of libvmaf's vmaf
# CLI> also libvmaf on the first LV_FRAMES (48) frames, 16 threads; then the
# --profile of each size's aom_ctc run. Run there from the bundle:
# .device/run.sh .device/device_ctc_perf.sh. Exits non-zero when a run fails
# or a GPU file differs from the CPU's.
set -uo pipefail
cd "$(dirname "$0")" || exit 2
m=/dev/shm/device_ctc_perf
mkdir -p $m
declare -A t
fail=0
n=${FRAMES:-480}
lv=${LV_FRAMES:-48}
secs() { awk "BEGIN{printf \"%.3f\", $2 - $1}"; }
fps() { awk "BEGIN{printf \"%.1f\", $1 / $2}"; }
same() {
  python3 -c "import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); print(a['frames']==b['frames'] and a.get('pooled_metrics')==b.get('pooled_metrics'))" "$1" "$2"
}
nvidia-smi --query-gpu=name --format=csv,noheader
for size in 3840:2160 1920:1080; do
  IFS=: read -r w h <<< "$size"
  r=$m/r$w.yuv d=$m/d$w.yuv
  if [[ $(stat -c %s $r 2>/dev/null) != $((w * h * 3 / 2 * n)) ]]; then
    python3 device_ctc_gen.py photo.yuv "$w" "$h" "$n" $r $d || exit 1
  fi
  io="-r $r -d $d -w $w -h $h -p 420 -b 8"
  for job in "--aom_ctc v7.0" "--nflx_ctc v1.0" "--model version=vmaf_float_v0.6.1 --feature float_ssim --feature float_psnr"; do
    [[ $w == 1920 && $job == --nflx* ]] && continue
    for b in cpu auto; do
      s0=$(date +%s.%N)
      # shellcheck disable=SC2086
      bin/twinmaf $io $job --backend $b --threads 16 --precision max --json -o $m/$b.json > $m/$b.log 2>&1 ||
        { echo "FAILED: $b $job"; tail -3 $m/$b.log; fail=1; }
      t[$b]=$(secs "$s0" "$(date +%s.%N)")
    done
    s=$(same $m/cpu.json $m/auto.json)
    [[ $s == True ]] || fail=1
    echo "${w}x$h ${n}f $job: twinmaf cpu ${t[cpu]} s ($(fps "$n" "${t[cpu]}") fps), gpu ${t[auto]} s ($(fps "$n" "${t[auto]}") fps), files equal: $s"
    if [[ -n ${LIBVMAF:-} && $job != --model* ]]; then
      s0=$(date +%s.%N)
      # shellcheck disable=SC2086
      "$LIBVMAF" $io $job --threads 16 --frame_cnt "$lv" -q --json -o $m/lv.json > $m/lv.log 2>&1 ||
        { echo "FAILED: libvmaf $job"; tail -3 $m/lv.log; fail=1; }
      s=$(secs "$s0" "$(date +%s.%N)")
      echo "${w}x$h ${lv}f $job: libvmaf CPU-16 $s s ($(fps "$lv" "$s") fps)"
    fi
  done
  # shellcheck disable=SC2086
  bin/twinmaf $io --aom_ctc v7.0 --threads 16 --verbose --profile --frame_cnt 48 -o /dev/null 2>&1 |
    grep -E ': cpu|kernel|host CPU|wall' || fail=1
done
exit $fail
