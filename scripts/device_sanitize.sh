#!/bin/bash
# device_sanitize.sh — compute-sanitizer memcheck and racecheck of the float,
# SSIM, cambi, psnr_hvs and ciede twins on the GPU host: each feature
# alone on a golden 576x324 clip of the bundle (3 frames), --backend cuda.
# Run there: .device/run.sh .device/device_sanitize.sh; exits non-zero when a
# tool reports anything or a run fails.
set -uo pipefail
cd "$(dirname "$0")"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
[[ -x $cs ]] || { echo "no compute-sanitizer"; exit 1; }
fail=0
io="-r clips/k420_ref.yuv -d clips/k420_dis.yuv -w 576 -h 324 -p 420 -b 8 --frame_cnt 3 --no_prediction --backend cuda --threads 4"
for f in ciede float_ssim float_ms_ssim float_psnr float_moment float_ansnr float_vif float_motion float_adm cambi "cambi=full_ref=true" psnr_hvs; do
  for tool in memcheck racecheck; do
    out=$($cs --tool $tool --error-exitcode 9 bin/twinmaf $io --feature $f -o /dev/null 2>&1); rc=$?
    summ=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" <<< "$out" | tail -1)
    echo "$f $tool rc=$rc $summ"
    [[ $rc == 0 ]] || { fail=1; tail -5 <<< "$out"; }
  done
done
exit $fail
