#!/bin/bash
# device_measure.sh — the GPU host's measurement session, run from .device/:
# twin tests, compute-sanitizer, read ceilings, end-to-end and device-resident
# benchmarks, one reference vs eight encodes. Output: stdout (tee it).
# PART=device: twin tests, sanitizers, resident; PART=io: content, ceilings,
# end to end, one reference vs eight; unset: both (longer than one device
# call allows). PART=engine: twin tests, then resident and end-to-end numbers
# of this build beside those of an earlier build in .device/base/ (same
# commands, same run), and a GPU run with a CPU-assigned feature at several
# thread counts. PART=startup: whole-process times of short and long jobs,
# this build beside .device/base/, with --profile start-up traces. PART=v1:
# VMAF v1 on the GPU (v1 twin tests, resident and end-to-end rates beside the
# read + upload ceilings). PART=cpu4k: the CPU path at 4K on 16 threads beside
# libvmaf's CLI (bin/vmaf; models/ and clips_mkv/ copied next to the script).
# PART=batch: --batch against separate processes (twinmaf's and libvmaf
# CUDA's, bin/vmaf_cuda) and one long job; outputs compared.
# Every step's failure is recorded and the session goes on; it exits 1 if any
# step failed (listed again at the end). Test runs keep their whole output in
# $OUT/device_measure/ (or /tmp/device_measure/), their summary lines printed.
set -euo pipefail
cd "$(dirname "$0")"
R=./run.sh
section() { echo; echo "=== $*"; }
logs=${OUT:-/tmp}/device_measure
mkdir -p "$logs"
fails=$logs/failed.txt
: > "$fails"
# failed STATUS WHAT [LOG]: records a failed step (in a file: command
# substitutions report too) and shows the end of its log.
failed() {
  echo "FAILED (exit $1): $2" | tee -a "$fails" >&2
  if [[ -n ${3:-} && -f $3 ]]; then tail -n 20 "$3" >&2; fi
}
# step COMMAND...: runs it; a failure is recorded, the session goes on.
step() { "$@" || failed $? "$*"; }
# test_run NAME TIMEOUT PATTERN LINES COMMAND...: a test run, its whole output
# in $logs/NAME.log; prints up to LINES of it that match PATTERN.
test_run() {
  local name=$1 limit=$2 pattern=$3 lines=$4 log=$logs/$1.log
  shift 4
  timeout "$limit" "$@" > "$log" 2>&1 || failed $? "$name (whole output: $log)"
  grep -E -m "$lines" "$pattern" "$log" || true
}
# Ends the session: exit 1 if any step failed, else 0.
finish() {
  if [[ -s $fails ]]; then
    section "FAILED steps"
    cat "$fails"
    exit 1
  fi
  exit 0
}
B="$R twinmaf_gpu_bench"
if [[ ${PART:-} == batch ]]; then
# --batch (docs/cli.md): 100 jobs of 1080p x 240 frames against 100 processes
# and one long job; 20 jobs of 4K x 480 frames against 20 processes of
# twinmaf and of libvmaf's CUDA build (bin/vmaf_cuda); every batch output ==
# its own process's (the fps field aside); a missing file fails alone.
H="-w 1920 -h 1080 -p 420 -b 8"
K="-w 3840 -h 2160 -p 420 -b 8"
python3 device_gen.py 1920 1080 240 /tmp/r1k.yuv /tmp/d1k.yuv 24
python3 device_gen.py 1920 1080 2400 /tmp/r1kl.yuv /tmp/d1kl.yuv 24
python3 device_gen.py 3840 2160 480 /tmp/r4k.yuv /tmp/d4k.yuv 24
cat /tmp/*.yuv > /dev/null
rm -rf /tmp/out && mkdir -p /tmp/out
secs() {  # whole wall time of a command, seconds
  local t0=$(date +%s.%N)
  "$@" > /tmp/out/last.log 2>&1 || failed $? "$*" /tmp/out/last.log
  python3 -c "print(f'{$(date +%s.%N) - $t0:.3f}')"
}
jobs() {  # jobs N REF DIS DIR: a jobs file of N jobs writing DIR/k.json
  mkdir -p "$4"
  for k in $(seq 1 "$1"); do echo "{\"reference\": \"$2\", \"distorted\": \"$3\", \"output\": \"$4/$k.json\"}"; done
}
same() {  # same DIR_A DIR_B: every JSON result equal but for fps
  python3 - "$1" "$2" <<'EOS' || failed 1 "outputs of $1 != $2"
import json, os, sys
a, b = sys.argv[1:]
names = sorted(os.listdir(a))
bad = [n for n in names if {k: v for k, v in json.load(open(f"{a}/{n}")).items() if k != "fps"} !=
       {k: v for k, v in json.load(open(f"{b}/{n}")).items() if k != "fps"}]
print(f"{len(names)} results compared, {len(bad)} differ")
sys.exit(1 if bad or not names else 0)
EOS
}
section "100 jobs, 1080p x 240 frames, vmaf_v0.6.1, raw in the page cache (whole wall time, s)"
mkdir -p /tmp/out/sep1k
t=$(secs bash -c "for k in \$(seq 1 100); do $R twinmaf -r /tmp/r1k.yuv -d /tmp/d1k.yuv $H --json -q -o /tmp/out/sep1k/\$k.json || exit 1; done")
echo "100 processes: $t s ($(python3 -c "print(f'{24000 / $t:.0f}')") fps)"
for n in 1 2 3 4; do
  jobs 100 /tmp/r1k.yuv /tmp/d1k.yuv /tmp/out/bat1k_$n > /tmp/out/jobs1k_$n.jsonl
  t=$(secs $R twinmaf --batch /tmp/out/jobs1k_$n.jsonl $H --json -q --batch-jobs $n --batch-summary /tmp/out/sum1k_$n.jsonl)
  echo "--batch, --batch-jobs $n: $t s ($(python3 -c "print(f'{24000 / $t:.0f}')") fps)"
  same /tmp/out/bat1k_$n /tmp/out/sep1k
done
jobs 100 /tmp/r1k.yuv /tmp/d1k.yuv /tmp/out/bat1k_0 > /tmp/out/jobs1k_0.jsonl
t=$(secs $R twinmaf --batch /tmp/out/jobs1k_0.jsonl $H --json -q)
echo "--batch, default jobs in flight: $t s ($(python3 -c "print(f'{24000 / $t:.0f}')") fps)"
same /tmp/out/bat1k_0 /tmp/out/sep1k
t=$(secs $R twinmaf -r /tmp/r1kl.yuv -d /tmp/d1kl.yuv $H -q)
echo "one long job, 2400 frames: $t s ($(python3 -c "print(f'{2400 / $t:.0f}')") fps)"
head -2 /tmp/out/sum1k_2.jsonl | cut -c1-300
section "20 jobs, 4K x 480 frames, vmaf_v0.6.1 (whole wall time, s)"
mkdir -p /tmp/out/sep4k /tmp/out/lv4k
t=$(secs bash -c "for k in \$(seq 1 20); do $R twinmaf -r /tmp/r4k.yuv -d /tmp/d4k.yuv $K --json -q -o /tmp/out/sep4k/\$k.json || exit 1; done")
echo "20 twinmaf processes: $t s"
for n in 2 3; do
  jobs 20 /tmp/r4k.yuv /tmp/d4k.yuv /tmp/out/bat4k_$n > /tmp/out/jobs4k_$n.jsonl
  t=$(secs $R twinmaf --batch /tmp/out/jobs4k_$n.jsonl $K --json -q --batch-jobs $n)
  echo "--batch, --batch-jobs $n: $t s ($(python3 -c "print(f'{9600 / $t:.0f}')") fps)"
  same /tmp/out/bat4k_$n /tmp/out/sep4k
done
if [[ -x bin/vmaf_cuda ]]; then
  t=$(secs bash -c "for k in \$(seq 1 20); do $R vmaf_cuda -r /tmp/r4k.yuv -d /tmp/d4k.yuv $K --json -q -o /tmp/out/lv4k/\$k.json || exit 1; done")
  echo "20 libvmaf CUDA processes: $t s"
  python3 -c "import json; a=json.load(open('/tmp/out/lv4k/1.json'))['pooled_metrics']['vmaf']['mean']; b=json.load(open('/tmp/out/bat4k_2/1.json'))['pooled_metrics']['vmaf']['mean']; print('libvmaf CUDA vmaf', a, 'twinmaf', b)"
else
  failed 1 "bin/vmaf_cuda is not bundled"
fi
section "a missing file in the middle fails alone"
{ echo '{"reference": "/tmp/r1k.yuv", "distorted": "/tmp/d1k.yuv", "output": "/tmp/out/m1.json"}'
  echo '{"reference": "/tmp/missing.yuv", "distorted": "/tmp/d1k.yuv", "output": "/tmp/out/m2.json"}'
  echo '{"reference": "/tmp/r1k.yuv", "distorted": "/tmp/d1k.yuv", "output": "/tmp/out/m3.json"}'; } > /tmp/out/missing.jsonl
set +e
$R twinmaf --batch /tmp/out/missing.jsonl $H --json --batch-summary /tmp/out/missing_sum.jsonl
code=$?
set -e
echo "exit $code; outputs: $(ls /tmp/out/m?.json | tr '\n' ' ')"
[[ $code == 2 && -f /tmp/out/m1.json && -f /tmp/out/m3.json && ! -f /tmp/out/m2.json ]] || failed 1 "missing-file batch"
cut -c1-200 /tmp/out/missing_sum.jsonl
finish
fi
if [[ ${PART:-} == startup ]]; then
# Whole processes from raw files in the page cache: this build beside the
# earlier one in .device/base/ (same commands, same run), best of 3, then
# this build's --profile start-up trace of each job.
section "pinning and context costs"
step $B pinning 512 32
step $B pinning 512 512
python3 device_gen.py 3840 2160 480 /tmp/r4k.yuv /tmp/d4k.yuv 30
python3 device_gen.py 1920 1080 480 /tmp/r1k.yuv /tmp/d1k.yuv 30
for i in 1 2 3 4 5 6 7 8; do cp /tmp/d1k.yuv /tmp/d1k_$i.yuv; done
cat /tmp/*.yuv > /dev/null
D8=""; for i in 1 2 3 4 5 6 7 8; do D8="$D8 -d /tmp/d1k_$i.yuv"; done
K="-w 3840 -h 2160 -p 420 -b 8 --backend cuda -q"
H="-w 1920 -h 1080 -p 420 -b 8 --backend cuda -q"
jobs=("4K 1 frame|-r /tmp/r4k.yuv -d /tmp/d4k.yuv $K --frame_cnt 1"
      "4K 480 frames|-r /tmp/r4k.yuv -d /tmp/d4k.yuv $K"
      "1080p 1 frame|-r /tmp/r1k.yuv -d /tmp/d1k.yuv $H --frame_cnt 1"
      "1080p 480 frames|-r /tmp/r1k.yuv -d /tmp/d1k.yuv $H"
      "1080p 1 ref x 8 encodes, 480 frames|-r /tmp/r1k.yuv $D8 $H")
best() {  # best of 3 whole-process wall times, seconds
  local b=99
  for k in 1 2 3; do
    local t0=$(date +%s.%N); "$@" > /dev/null 2>&1 || failed $? "$*"; local t1=$(date +%s.%N)
    b=$(python3 -c "print(min($b, $t1 - $t0))")
  done
  printf '%.3f' "$b"
}
# libvmaf's CUDA build (f85a8536, bin/vmaf_cuda when bundled) runs the same
# jobs with its CLI (VMAF v0.6.1 built in; one distorted input per process).
lv() {  # twinmaf arguments -> libvmaf's: drop --backend cuda, -q stays
  local out=() skip=0
  for a in "$@"; do
    if ((skip)); then skip=0; continue; fi
    case $a in --backend) skip=1 ;; *) out+=("$a") ;; esac
  done
  echo "${out[@]}"
}
section "whole processes, best of 3 (s): base | new | libvmaf CUDA"
for j in "${jobs[@]}"; do
  name=${j%%|*}; args=${j#*|}
  lib="-"
  if [[ -x bin/vmaf_cuda && $name != *encodes* ]]; then lib=$(best $R vmaf_cuda $(lv $args)); fi
  printf '%-40s %s | %s | %s\n' "$name" "$(best base/run.sh twinmaf $args)" "$(best $R twinmaf $args)" "$lib"
done
if [[ -x bin/vmaf_cuda ]]; then
  section "libvmaf CUDA: 1 ref x 8 encodes as 8 processes in sequence (s)"
  t0=$(date +%s.%N)
  for i in 1 2 3 4 5 6 7 8; do
    $R vmaf_cuda -r /tmp/r1k.yuv -d /tmp/d1k_$i.yuv -w 1920 -h 1080 -p 420 -b 8 -q >/dev/null 2>&1 || failed $? "vmaf_cuda $i"
  done
  python3 -c "print(round($(date +%s.%N) - $t0, 3))"
fi
section "new: --profile start-up traces"
for j in "${jobs[@]}"; do
  echo "--- ${j%%|*}"
  $R twinmaf ${j#*|} --profile 2>&1 | sed -E '/^  (kernel|upload plane)/d' || failed $? "--profile ${j%%|*}"
done
section "new: 4K 480 frames by --readers (s)"
for r in 2 4 6 8 12; do printf 'readers %2d: %s\n' $r "$(best $R twinmaf -r /tmp/r4k.yuv -d /tmp/d4k.yuv $K --readers $r)"; done
section "new: no CUDA work, same process shape (--backend cpu, 1 frame 1080p)"
printf 'cpu 1 frame: %s\n' "$(best $R twinmaf -r /tmp/r1k.yuv -d /tmp/d1k.yuv -w 1920 -h 1080 -p 420 -b 8 --backend cpu -q --frame_cnt 1)"
printf 'version: %s\n' "$(best $R twinmaf --version)"
finish
fi
if [[ ${PART:-} == cpu4k ]]; then
# The CPU path at 4K on this host's 16 cores (issue 15): twinmaf --backend cpu
# beside libvmaf f85a8536's CLI (bin/vmaf, its own AVX2/AVX-512 paths), same
# files, interleaved, median of 3. Content: the repository's 1080p x264 crf18
# and crf38 encodes of kleiber, decoded and scaled to 4K with OpenCV (bicubic).
section "4K CPU, --threads 16: twinmaf vs libvmaf"
t=/tmp/cpu4k; mkdir -p $t
python3 - "$t" <<'PY'
import cv2, sys
out = sys.argv[1]
for q in (18, 38):
    cap = cv2.VideoCapture(f"clips_mkv/kleiber_1920x1080_420p8_24f__x264crf{q}.mkv")
    with open(f"{out}/c{q}.yuv", "wb") as f:
        n = 0
        while True:
            ok, bgr = cap.read()
            if not ok: break
            f.write(cv2.cvtColor(cv2.resize(bgr, (3840, 2160), interpolation=cv2.INTER_CUBIC), cv2.COLOR_BGR2YUV_I420).tobytes())
            n += 1
    print(f"crf{q}: {n} frames")
PY
A="-r $t/c18.yuv -d $t/c38.yuv -w 3840 -h 2160 -p 420 -b 8 --threads 16 -q"
declare -A cfg=(
  [v061]="--model version=vmaf_v0.6.1"
  [v1]="--model path=models/vmaf_v1.0.16_3d0h.json"
  [psnr3]="--no_prediction --feature psnr --feature psnr_hvs --feature float_ssim"
)
for c in v061 v1 psnr3; do
  tw=(); lv=()
  for k in 1 2 3; do
    t0=$(date +%s.%N)
    $R twinmaf $A --backend cpu ${cfg[$c]} -o $t/tw_$c.json --json --precision max >/dev/null 2>$t/tw.err ||
      failed $? "twinmaf $c" $t/tw.err
    t1=$(date +%s.%N)
    $R vmaf $A ${cfg[$c]} -o $t/lv_$c.json --json >/dev/null 2>$t/lv.err || failed $? "libvmaf $c" $t/lv.err
    t2=$(date +%s.%N)
    tw+=($(python3 -c "print($t1-$t0)")); lv+=($(python3 -c "print($t2-$t1)"))
  done
  python3 - "$c" "${tw[*]}" "${lv[*]}" "$t/tw_$c.json" "$t/lv_$c.json" <<'PY' || failed $? "cpu4k $c: the results differ or are missing"
import json, statistics, sys
c, tw, lv, a, b = sys.argv[1:]
tw = sorted(map(float, tw.split())); lv = sorted(map(float, lv.split()))
A, B = json.load(open(a)), json.load(open(b))
same = [f["metrics"] for f in A["frames"]] == [f["metrics"] for f in B["frames"]]
print(f"{c}: twinmaf {statistics.median(tw):.3f} s [{tw[0]:.3f}..{tw[-1]:.3f}], libvmaf {statistics.median(lv):.3f} s "
      f"[{lv[0]:.3f}..{lv[-1]:.3f}], {statistics.median(lv)/statistics.median(tw):.2f}x; {len(A['frames'])} frames; "
      f"per-frame metrics {'==' if same else '!='}")
sys.exit(0 if same else 1)
PY
done
finish
fi
if [[ ${PART:-} == v1 ]]; then
# VMAF v1 on the GPU (issue 14): the v1 twin tests, device-resident rates of
# both 3d0h models, and end to end from raw 4:2:0 files (every plane: speed
# reads chroma) beside the read + upload ceiling of the same bytes, same run.
section "v1 twin tests"
test_run v1_twin 200 "^\[  (PASSED|FAILED)|FAILED|twin:|Failure" 40 \
  $R twinmaf_twin --gtest_filter='ModelTwin.*:SpeedTwin*:CambiTwin.PoolingRoutes:ApiTwin.*'
V1="cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17 speed_chroma=speed_kernelscale=1.0:speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45 adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:adm_norm_view_dist=3.0:adm_ref_display_height=1080:adm_min_val=0.5:adm_csf_mode=2"
M3="motion=motion_max_val=18"
MH="motion=motion_max_val=18:motion_five_frame_window=true:motion_moving_average=true"
section "device resident: vmaf_v1.0.16_3d0h, then _hfr_3d0h"
for size in "3840 2160 1500" "1920 1080 6000"; do
  set -- $size
  $B resident $1 $2 420 8 $3 $V1 $M3 2>&1 | tail -1 || failed $? "resident v1 $1x$2"
  $B resident $1 $2 420 8 $3 $V1 $MH 2>&1 | tail -1 || failed $? "resident v1 hfr $1x$2"
done
python3 device_gen.py 3840 2160 480 /tmp/r4k.yuv /tmp/d4k.yuv 60
python3 device_gen.py 1920 1080 480 /tmp/r1k.yuv /tmp/d1k.yuv 60
cat /tmp/*.yuv > /dev/null
section "read + upload ceilings, every plane (frames/s of one file: halve for pairs)"
for t in 6 12; do
  step $B ceiling_upload /tmp/r4k.yuv 12441600 12441600 $t
  step $B ceiling_upload /tmp/r1k.yuv 3110400 3110400 $t
done
section "end to end (frame loop fps, best and median of 3) by --threads / --readers (0: default; V1_CONFIGS=\"t,r ...\")"
K4="-r /tmp/r4k.yuv -d /tmp/d4k.yuv -w 3840 -h 2160 -p 420 -b 8 --backend cuda"
K1="-r /tmp/r1k.yuv -d /tmp/d1k.yuv -w 1920 -h 1080 -p 420 -b 8 --backend cuda"
for m in vmaf_v1.0.16_3d0h vmaf_v1.0.16_hfr_3d0h; do
  for k in "$K4" "$K1"; do
    for tr in ${V1_CONFIGS:-0,0 4,0 4,10 6,10 8,8}; do
      set -- ${tr/,/ }
      line=$($R twinmaf_bench $k -m version=$m --threads $1 --readers $2 --repeat 3 2>&1 | tail -1) ||
        failed $? "twinmaf_bench $m ${k:0:30} threads $1 readers $2"
      echo "$m ${k:0:30} threads $1 readers $2: $line"
    done
  done
done
section "--profile, 4K vmaf_v1.0.16_3d0h --threads 16"
$R twinmaf $K4 -m version=vmaf_v1.0.16_3d0h --threads 16 --profile -o /dev/null 2>&1 | sed -E '/^  (upload plane)/d' ||
  failed $? "--profile 4K vmaf_v1.0.16_3d0h"
section "the same values: --threads 0 and 16 at --precision max"
for t in 0 16; do step $R twinmaf $K1 -m version=vmaf_v1.0.16_hfr_3d0h --threads $t --precision max --csv -o /tmp/v1_$t.csv -q; done
if cmp /tmp/v1_0.csv /tmp/v1_16.csv; then
  echo "threads 0 and 16: identical files ($(wc -l < /tmp/v1_0.csv) lines)"
else
  failed $? "threads 0 and 16: the files differ"
fi
finish
fi
if [[ ${PART:-} == engine ]]; then
section "twin tests"
test_run engine_twin 240 "^\[  (PASSED|FAILED)|^\[       OK|FAILED|twin:|Failure|frame [0-9]+:|terms differ" 80 \
  $R twinmaf_twin
section "compute-sanitizer memcheck (the loop's threads, push_device)"
timeout 100 $R compute-sanitizer --tool memcheck --error-exitcode 9 ./bin/twinmaf_twin \
  --gtest_filter='Twin.SubsampleThree:Twin.GraphReplayOverLongSequences:ApiTwin.*:PsnrHvsTwin.IdenticalPairsAreInfinite:PsnrHvsTwin.DeviceReductionEqualsThePlainLoop' \
  > "$logs/engine_memcheck.log" 2>&1 || failed $? "memcheck (9: errors found; whole output: $logs/engine_memcheck.log)"
tail -n 3 "$logs/engine_memcheck.log"
python3 device_gen.py 3840 2160 480 /tmp/r4k.yuv /tmp/d4k.yuv 60
python3 device_gen.py 1920 1080 600 /tmp/r1k.yuv /tmp/d1k.yuv 60
cat /tmp/*.yuv > /dev/null
R4="-r /tmp/r4k.yuv -d /tmp/d4k.yuv -w 3840 -h 2160 -p 420 -b 8 --backend cuda"
I1="-r /tmp/r1k.yuv -d /tmp/d1k.yuv -w 1920 -h 1080 -p 420 -b 8"
R1="$I1 --backend cuda"
for build in base new base new; do
  if [[ $build == base ]]; then X=base/run.sh; else X=$R; fi
  section "$build: device resident, end to end"
  step $X twinmaf_gpu_bench resident 1920 1080 420 8 8000 adm vif motion
  step $X twinmaf_gpu_bench resident 3840 2160 420 8 2000 adm vif motion
  step $X twinmaf_gpu_bench resident 3840 2160 420 8 1000 psnr_hvs
  step $X twinmaf_bench $R4 --repeat 3
  step $X twinmaf_bench $R1 --repeat 3
  for t in 1 8; do step $X twinmaf_bench $R1 --threads $t --repeat 2; done
done
section "new: GPU run with CPU psnr_hvs (1080p, vif on the GPU), by --threads"
for t in 0 1 2 4 8 16; do
  step $R twinmaf_bench $I1 -n --feature psnr_hvs --feature vif --backend auto,psnr_hvs=cpu --threads $t --repeat 2
done
section "new: the same features all on the CPU, by --threads"
for t in 8 16; do step $R twinmaf_bench $I1 -n --feature psnr_hvs --feature vif --backend cpu --threads $t --repeat 1; done
section "new: --profile of the mixed run"
step $R twinmaf $I1 -n --feature psnr_hvs --feature vif --backend auto,psnr_hvs=cpu --threads 16 --profile -o /dev/null
finish
fi
if [[ ${PART:-device} != io ]]; then
section "twin tests"
test_run twin 170 "^\[  (PASSED|FAILED)|^\[       OK|FAILED|twin:|Failure|frame [0-9]+:" 60 $R twinmaf_twin
section "compute-sanitizer memcheck"
timeout 80 $R compute-sanitizer --tool memcheck --error-exitcode 9 ./bin/twinmaf_twin \
  --gtest_filter='Twin.SubsampleThree:Twin.PsnrOptions:Twin.GraphReplayOverLongSequences:VifTwin.EveryOption:AdmTwin.IdenticalAndFlatInputs:PsnrHvsTwin.IdenticalPairsAreInfinite' \
  > "$logs/memcheck.log" 2>&1 || failed $? "memcheck (9: errors found; whole output: $logs/memcheck.log)"
tail -n 4 "$logs/memcheck.log"
section "compute-sanitizer racecheck"
timeout 70 $R compute-sanitizer --tool racecheck --error-exitcode 9 ./bin/twinmaf_twin \
  --gtest_filter='Twin.SubsampleThree:VifTwin.IdenticalInputs:AdmTwin.IdenticalAndFlatInputs:PsnrHvsTwin.IdenticalPairsAreInfinite' \
  > "$logs/racecheck.log" 2>&1 || failed $? "racecheck (9: hazards found; whole output: $logs/racecheck.log)"
tail -n 4 "$logs/racecheck.log"
section "device resident"
for g in 0 1; do for b in 1 2 3; do step $B resident 1920 1080 420 8 8000 --banks=$b --graphs=$g adm vif motion; done; done
for g in 0 1; do for b in 1 3; do step $B resident 3840 2160 420 8 2000 --banks=$b --graphs=$g adm vif motion; done; done
step $B resident 3840 2160 420 10 2000 adm vif motion
step $B resident 3840 2160 420 8 2000 psnr_hvs
section "nsight compute: kernels of 1080p VMAF, one bank, no graphs (to \$OUT/ncu.txt)"
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1 || true)
if [[ -n $ncu && -n ${OUT:-} ]]; then
  timeout 150 $R "$ncu" --launch-skip 300 --launch-count 24 --section SpeedOfLight --section LaunchStats \
    --section Occupancy ./bin/twinmaf_gpu_bench resident 1920 1080 420 8 10 --banks=1 --graphs=0 adm vif motion \
    > "$OUT/ncu.txt" 2>&1 || failed $? "nsight compute (whole output: \$OUT/ncu.txt)"
  grep -E -m 60 "^  [a-z_]+.*\(|Duration" "$OUT/ncu.txt" || true
fi
fi
if [[ ${PART:-io} != device ]]; then
section "content"
python3 device_gen.py 3840 2160 480 /tmp/r4k.yuv /tmp/d4k.yuv 60
python3 device_gen.py 1920 1080 600 /tmp/r1k.yuv /tmp/d1k.yuv 60
python3 device_gen.py 3840 2160 240 /tmp/r4k10.yuv /tmp/d4k10.yuv 30 10
for i in 1 2 3 4 5 6 7 8; do cp /tmp/d1k.yuv /tmp/d1k_$i.yuv; done
cat /tmp/*.yuv > /dev/null
section "read ceilings (12 threads; halve for pairs)"
step $B ceiling /tmp/r4k.yuv 12441600 12441600 12
step $B ceiling /tmp/r4k.yuv 12441600 8294400 12
step $B ceiling_upload /tmp/r4k.yuv 12441600 12441600 12
step $B ceiling_upload /tmp/r4k.yuv 12441600 8294400 12
step $B ceiling /tmp/r1k.yuv 3110400 2073600 12
step $B ceiling_upload /tmp/r1k.yuv 3110400 2073600 12
step $B ceiling /tmp/r4k10.yuv 24883200 16588800 12
step $B ceiling_upload /tmp/r4k10.yuv 24883200 16588800 12
section "end to end, from raw files in the page cache"
R4="-r /tmp/r4k.yuv -d /tmp/d4k.yuv -w 3840 -h 2160 -p 420 -b 8 --backend cuda"
R1="-r /tmp/r1k.yuv -d /tmp/d1k.yuv -w 1920 -h 1080 -p 420 -b 8 --backend cuda"
step $R twinmaf $R4 --profile -o /dev/null "$@"
step $R twinmaf_bench $R4 --repeat 3
step $R twinmaf_bench $R1 --repeat 3
step $R twinmaf_bench -r /tmp/r4k10.yuv -d /tmp/d4k10.yuv -w 3840 -h 2160 -p 420 -b 10 --backend cuda --repeat 3
step $R twinmaf -r /tmp/r1k.yuv -d /tmp/d1k.yuv -w 1920 -h 1080 -p 420 -b 8 --backend cuda --profile -o /dev/null
step $R twinmaf_bench $R4 -n --feature psnr --feature motion --repeat 2
step $R twinmaf_bench $R4 -n --feature psnr_hvs --repeat 2
section "one reference, eight encodes (1080p, vmaf_v0.6.1)"
D=""; for i in 1 2 3 4 5 6 7 8; do D="$D -d /tmp/d1k_$i.yuv"; done
t0=$(date +%s.%N); step $R twinmaf -r /tmp/r1k.yuv $D -w 1920 -h 1080 -p 420 -b 8 --backend cuda -q; t1=$(date +%s.%N)
for i in 1 2 3 4 5 6 7 8; do step $R twinmaf -r /tmp/r1k.yuv -d /tmp/d1k_$i.yuv -w 1920 -h 1080 -p 420 -b 8 --backend cuda -q; done
t2=$(date +%s.%N)
python3 -c "a=$t1-$t0; b=$t2-$t1; n=8*600; print(f'one pass: {a:.2f} s, {n/a:.0f} comparisons/s; eight runs: {b:.2f} s, {n/b:.0f} comparisons/s; ratio {b/a:.2f}x')"
step $R twinmaf_bench -r /tmp/r1k.yuv $D -w 1920 -h 1080 -p 420 -b 8 --backend cuda --repeat 2
fi
finish
