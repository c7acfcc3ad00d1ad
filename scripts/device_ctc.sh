#!/bin/bash
# device_ctc.sh — the CTC presets and the float model on the GPU host, CPU
# against GPU, whole processes on 16 threads, result files compared at
# --precision max; with LIBVMAF=<path of libvmaf's vmaf CLI> also libvmaf on
# the first LV_FRAMES (48) frames, 16 threads; each size's aom_ctc --profile;
# then cambi alone on adversarial content (device_cambi_gen.py).
# Run there from the bundle: .device/run.sh .device/device_ctc.sh
# (FRAMES: frames of the CTC content (device_ctc_gen.py), 24; SIZES: W:H
# list, 3840:2160; CAMBI_FRAMES: of the cambi content, 48, 0 for none; KINDS:
# the cambi contents; JOBS: the jobs, separated by '|', the three above by
# default; CAMBI_CLIPS: a folder of clips (the golden .mkv files) for a table
# of cambi's loop per frame on each, CPU against GPU; CAMBI_REPEAT: their
# frames at 576x324, 4800).
# Exits non-zero when a run fails or a GPU file differs from the CPU's.
set -uo pipefail
cd "$(dirname "$0")" || exit 2
m=/dev/shm/device_ctc
mkdir -p $m
fail=0
n=${FRAMES:-24}
lv=${LV_FRAMES:-48}
secs() { awk "BEGIN{printf \"%.3f\", $2 - $1}"; }
fps() { awk "BEGIN{printf \"%.1f\", $1 / $2}"; }
# Loop ms per frame: seconds at N frames and at 1 frame, N.
loop_ms() { awk "BEGIN{printf \"%.4f\", ($1 - $2) * 1000 / ($3 - 1)}"; }
same() {
  python3 -c "import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); print(a['frames']==b['frames'] and a.get('pooled_metrics')==b.get('pooled_metrics'))" "$1" "$2"
}
# A timed run: label, then twinmaf's arguments; the JSON result goes to
# $m/$label.json (none after a failed run, so that same() fails too: run's
# status stays in its subshell).
run() {
  local label=$1 s0
  shift
  rm -f "$m/$label.json"
  s0=$(date +%s.%N)
  bin/twinmaf "$@" --precision max --json --threads 16 -o "$m/$label.json" > "$m/$label.log" 2>&1 ||
    { echo "FAILED: $label $*" >&2; tail -3 "$m/$label.log" >&2; fail=1; }
  secs "$s0" "$(date +%s.%N)"
}
nvidia-smi --query-gpu=name --format=csv,noheader
for size in ${SIZES:-3840:2160}; do
  IFS=: read -r w h <<< "$size"
  r=$m/r$w.yuv d=$m/d$w.yuv
  if [[ $(stat -c %s $r 2>/dev/null) != $((w * h * 3 / 2 * n)) ]]; then
    python3 device_ctc_gen.py photo.yuv "$w" "$h" "$n" $r $d || exit 1
  fi
  io="-r $r -d $d -w $w -h $h -p 420 -b 8"
  IFS='|' read -ra jobs <<< "${JOBS:---aom_ctc v7.0|--nflx_ctc v1.0|--model version=vmaf_float_v0.6.1 --feature float_ssim --feature float_psnr}"
  for job in "${jobs[@]}"; do
    [[ $w != 3840 && $job == --nflx* ]] && continue  # a 4K preset
    # shellcheck disable=SC2086
    c=$(run cpu $io $job --backend cpu)
    # shellcheck disable=SC2086
    g=$(run gpu $io $job --backend auto)
    s=$(same $m/cpu.json $m/gpu.json)
    [[ $s == True ]] || fail=1
    echo "${w}x$h ${n}f $job: twinmaf cpu $c s ($(fps "$n" "$c") fps), gpu $g s ($(fps "$n" "$g") fps), files equal: $s"
    if [[ -n ${LIBVMAF:-} && $job != --model* ]]; then
      s0=$(date +%s.%N)
      # shellcheck disable=SC2086
      "$LIBVMAF" $io $job --threads 16 --frame_cnt "$lv" -q --json -o $m/lv.json > $m/lv.log 2>&1 ||
        { echo "FAILED: libvmaf $job"; tail -3 $m/lv.log; fail=1; }
      t=$(secs "$s0" "$(date +%s.%N)")
      echo "${w}x$h ${lv}f $job: libvmaf CPU-16 $t s ($(fps "$lv" "$t") fps)"
    fi
  done
  # shellcheck disable=SC2086
  bin/twinmaf $io --aom_ctc v7.0 --threads 16 --verbose --profile -o /dev/null 2>&1 |
    grep -E ': (cuda|cpu)|kernel|host CPU|loop|wall' || fail=1
done
if [[ -n ${CAMBI_CLIPS:-} ]]; then
  # Each clip decoded once (bin/ffmpeg) and repeated to CAMBI_REPEAT frames at
  # 576x324, as many pixels at other sizes (240 frames at least); cambi alone,
  # CPU and GPU on 16 threads, whole processes at those frames and at one:
  # their difference over the frames between is the loop's time per frame,
  # without either process's start.
  printf "%-44s %9s %6s %9s %9s %s\n" "clip (cambi, loop ms/frame)" size frames cpu gpu "files equal"
  for f in "$CAMBI_CLIPS"/*.mkv; do
    info=$(bin/ffmpeg -hide_banner -i "$f" 2>&1 | grep -m1 "Video:")
    wh=$(grep -o "[0-9]\{2,5\}x[0-9]\{2,5\}" <<< "$info" | head -1)
    pf=$(grep -o "yuv4[24][024]p[0-9]*" <<< "$info" | head -1)
    [[ -n $wh && -n $pf ]] || { fail=1; echo "FAILED: no size or layout for $f"; continue; }
    w=${wh%x*} h=${wh#*x} l=${pf#yuv}
    b=${l#*p}
    cn=$(((${CAMBI_REPEAT:-4800} * 576 * 324) / (w * h)))
    ((cn < 240)) && cn=240
    y=$m/clip.yuv
    bin/ffmpeg -v error -stream_loop -1 -i "$f" -frames:v $cn -f rawvideo "$y" ||
      { fail=1; echo "FAILED: decoding $f"; continue; }
    cio="-r $y -d $y -w $w -h $h -p ${l%p*} -b ${b:-8} --feature cambi --no_prediction"
    # shellcheck disable=SC2086
    c=$(run cpu $cio --backend cpu) c1=$(run cpu1 $cio --backend cpu --frame_cnt 1)
    # shellcheck disable=SC2086
    g=$(run gpu $cio --backend cuda) g1=$(run gpu1 $cio --backend cuda --frame_cnt 1)
    s=$(same $m/cpu.json $m/gpu.json)
    [[ $s == True && -s $m/cpu1.json && -s $m/gpu1.json ]] || fail=1
    printf "%-44s %9s %6s %9s %9s %s\n" "$(basename "$f" .mkv)" "$wh" $cn "$(loop_ms "$c" "$c1" $cn)" \
      "$(loop_ms "$g" "$g1" $cn)" "$s"
    rm -f "$y"
  done
fi
[[ ${CAMBI_FRAMES:-48} == 0 ]] && exit $fail
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
