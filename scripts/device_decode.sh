#!/bin/bash
# device_decode.sh MEDIA [checks|4k|1080p|all] — NVDEC on the GPU host
# (run through .device/run.sh; MEDIA holds scripts/decode_media.sh's sets in
# small/, 1080p/, 4k/). Prints every measurement; exits 1 when a check fails.
#   checks: NVDEC's frames == libavcodec's software decoding, every sample
#           (psnr's MSE of each plane of each frame is 0 with one input decoded
#           each way), for H.264, HEVC 8/10-bit, HEVC 4:4:4, VP9, full range;
#           --decode nvdec/auto scores == --decode cpu (every value); a
#           refusal is one line; compute-sanitizer memcheck of an NVDEC run.
#   4k:     the 4K H.264 + HEVC pair, 480 frames: FFmpeg decoding both
#           streams (CPU, NVDEC, split) and twinmaf (VMAF v0.6.1 on the GPU)
#           under each --decode, whole processes, same run.
#   1080p:  one reference x 8 HEVC encodes, and AV1 (dav1d) beside FFmpeg.
set -uo pipefail
media=${1:?usage: device_decode.sh MEDIA [checks|4k|1080p|all]}
what=${2:-all}
work=$(mktemp -d)
failed=()
fail() { failed+=("$1"); echo "FAIL: $1"; }
cores=$(nproc)
TIMEFORMAT=%R

# Seconds of wall time of a command (its output to $work/last.log). Called
# in $(...): a failure is noted in $work/wall_failed, read at the end.
wall() { { time "$@" >"$work/last.log" 2>&1 || echo "$* (exit $?): $(tail -1 "$work/last.log")" >>"$work/wall_failed"; } 2>&1 | tail -1; }
fps() { python3 -c "print(f'{$1 / $2:.1f}')"; }

# The JSON of two runs equal but for fps.
same_json() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("fps", None)
sys.exit(0 if a == b else 1)
EOF
}

checks() {
  echo "== checks: NVDEC == libavcodec's software decoding, every sample"
  for f in ref8.mkv ref10.mkv dis10.mkv hevc444.mkv ref444.mkv vp9.webm hevc8.mp4 full.mkv; do
    local out=$work/mse_$f.json
    if ! twinmaf -r "$media/small/$f" -d "$media/small/$f" --decode cpu,nvdec --backend cuda --verbose \
        --feature psnr=enable_chroma=true:enable_mse=true --json -o "$out" -q >"$work/$f.log" 2>&1; then
      fail "$f: NVDEC run: $(grep error "$work/$f.log")"
      continue
    fi
    grep -q "decode: .*$f: nvdec" "$work/$f.log" || fail "$f: the encode did not decode on NVDEC: $(grep decode: "$work/$f.log")"
    python3 - "$out" "$f" <<'EOF' || fail "$f: samples differ"
import json, sys
d = json.load(open(sys.argv[1]))
frames = d["frames"]
bad = [(fr["frameNum"], k, v) for fr in frames for k, v in fr["metrics"].items() if k.startswith("mse_") and v != 0]
keys = {k for fr in frames for k in fr["metrics"] if k.startswith("mse_")}
print(f"{sys.argv[2]}: {len(frames)} frames, {sorted(keys)}: {'all 0' if not bad else bad[:3]}")
sys.exit(0 if frames and len(keys) == 3 and not bad else 1)
EOF
  done

  echo "== checks: scores under each --decode and several decoders == one CPU decoder (--decode cpu --decoders 1)"
  local pairs=("small/ref10.mkv small/dis10.mkv" "small/ref8.mkv small/vp9.webm" "small/ref444.mkv small/hevc444.mkv"
               "1080p/ref.mkv 1080p/hevc_3.mkv" "1080p/hevc_1.mkv 1080p/hevc_8.mkv")
  for p in "${pairs[@]}"; do
    read -r r d <<<"$p"
    twinmaf -r "$media/$r" -d "$media/$d" --decode cpu --decoders 1 --json -o "$work/cpu.json" -q --precision max ||
      { fail "$p: cpu run"; continue; }
    for mode in cpu nvdec auto nvdec,cpu; do
      for decoders in 0 3; do
        twinmaf -r "$media/$r" -d "$media/$d" --decode $mode --decoders $decoders --json -o "$work/m.json" -q \
          --precision max --verbose 2>"$work/m.log" || { fail "$p --decode $mode: $(grep error "$work/m.log")"; continue; }
        same_json "$work/cpu.json" "$work/m.json" &&
          echo "$p --decode $mode --decoders $decoders: == cpu; $(grep -o 'decode: .*' "$work/m.log" | sed "s|$media/||" | tr '\n' ';')" ||
          fail "$p --decode $mode --decoders $decoders: values differ from --decode cpu --decoders 1"
      done
    done
  done
  echo "== checks: a refusal is one line, no output"
  twinmaf -r "$media/1080p/ref.mkv" -d "$media/1080p/av1_1.ivf" --decode nvdec --json -o "$work/x.json" -q \
    2>"$work/x.log" && fail "AV1 --decode nvdec on Hopper: scored"
  cat "$work/x.log"
  [[ $(wc -l <"$work/x.log") == 1 && ! -e $work/x.json ]] || fail "AV1 --decode nvdec: not one line, or an output"
  twinmaf -r "$media/small/ref8.mkv" -d "$media/small/hevc8.mp4" --decode nvdec --feature psnr_hvs --backend cpu \
    -q 2>"$work/x.log" && fail "--decode nvdec with a CPU feature: scored"
  cat "$work/x.log"
  echo "== checks: compute-sanitizer memcheck, NVDEC"
  if command -v compute-sanitizer >/dev/null; then
    compute-sanitizer --tool memcheck --error-exitcode 9 "$(command -v twinmaf)" -r "$media/small/ref10.mkv" \
      -d "$media/small/dis10.mkv" --decode nvdec -q --frame_cnt 12 >"$work/ms.log" 2>&1 || fail "memcheck: $(tail -5 "$work/ms.log")"
    grep "ERROR SUMMARY" "$work/ms.log"
  else
    fail "no compute-sanitizer"
  fi
}

# A `bash -c` line's background jobs (each `... & p+=($!);`) waited for, failing where one failed.
wait_all='for j in "${p[@]}"; do wait $j || exit 1; done'
# FFmpeg decoding every file given at once, threads each: seconds.
ff_cpu() { local t=$1; shift; wall bash -c "$(for f in "$@"; do printf "ffmpeg -nostdin -v error -threads %s -i '%s' -f null - & p+=(\$!); " "$t" "$f"; done) $wait_all"; }
ff_nvdec() { wall bash -c "$(for f in "$@"; do printf "ffmpeg -nostdin -v error -hwaccel cuda -hwaccel_output_format cuda -i '%s' -f null - & p+=(\$!); " "$f"; done) $wait_all"; }
# The first files on NVDEC, the rest on the CPU with t threads each.
ff_split() { local n=$1 t=$2; shift 2; local cmd="" k=0; for f in "$@"; do
    if (( k < n )); then cmd+="ffmpeg -nostdin -v error -hwaccel cuda -hwaccel_output_format cuda -i '$f' -f null - & p+=(\$!); "
    else cmd+="ffmpeg -nostdin -v error -threads $t -i '$f' -f null - & p+=(\$!); "; fi; k=$((k + 1)); done
  wall bash -c "$cmd $wait_all"; }

perf_4k() {
  echo "== 4K H.264 18 Mbit/s + HEVC 15 Mbit/s, 480 frames ($cores cores)"
  local r=$media/4k/ref.mkv d=$media/4k/dis.mkv n=480
  for ((round = 1; round <= ${ROUNDS:-2}; round++)); do
    local s
    s=$(ff_cpu 0 "$r" "$d"); echo "ffmpeg both on the CPU (threads auto each): $s s = $(fps $n $s) pairs/s"
    s=$(ff_cpu $((cores / 2)) "$r" "$d"); echo "ffmpeg both on the CPU ($((cores / 2)) threads each): $s s = $(fps $n $s) pairs/s"
    s=$(ff_nvdec "$r" "$d"); echo "ffmpeg both on NVDEC: $s s = $(fps $n $s) pairs/s"
    s=$(ff_split 1 "$cores" "$r" "$d"); echo "ffmpeg ref NVDEC, dis CPU: $s s = $(fps $n $s) pairs/s"
    s=$(ff_split 1 "$cores" "$d" "$r"); echo "ffmpeg dis NVDEC, ref CPU: $s s = $(fps $n $s) pairs/s"
    for mode in cpu nvdec auto nvdec,cpu cpu,nvdec; do
      for decoders in 1 0; do
        s=$(wall twinmaf -r "$r" -d "$d" --decode $mode --decoders $decoders --json -o "$work/t_${mode}_$decoders.json" -q --precision max)
        echo "twinmaf --decode $mode --decoders $decoders: $s s = $(fps $n $s) fps"
      done
    done
  done
  for mode in cpu nvdec auto nvdec,cpu cpu,nvdec; do
    for decoders in 1 0; do
      same_json "$work/t_cpu_1.json" "$work/t_${mode}_$decoders.json" || fail "4K --decode $mode --decoders $decoders: values differ"
    done
  done
  # The same frames decoded to raw files (FFmpeg, CPU): the values of a raw run.
  ffmpeg -nostdin -v error -threads "$cores" -i "$r" -f rawvideo -pix_fmt yuv420p "$work/ref.yuv" &&
    ffmpeg -nostdin -v error -threads "$cores" -i "$d" -f rawvideo -pix_fmt yuv420p "$work/dis.yuv" || fail "4K raw decode"
  s=$(wall twinmaf -r "$work/ref.yuv" -d "$work/dis.yuv" -w 3840 -h 2160 -p 420 -b 8 --json -o "$work/raw.json" -q --precision max)
  echo "twinmaf raw (page cache): $s s = $(fps $n $s) fps"
  same_json "$work/raw.json" "$work/t_auto_0.json" && echo "4K: --decode auto == the raw run" || fail "4K: values differ from the raw run"
  rm -f "$work/ref.yuv" "$work/dis.yuv"
  twinmaf -r "$r" -d "$d" --decode auto --profile --verbose -q 2>&1 | grep -E "decode|wall|read|loop"
}

perf_1080p() {
  echo "== 1080p: one H.264 reference x 8 HEVC encodes, ${FRAMES:-240} frames ($cores cores)"
  local r=$media/1080p/ref.mkv n=${FRAMES:-240} dis=() files=("$media/1080p/ref.mkv")
  for k in 1 2 3 4 5 6 7 8; do dis+=(-d "$media/1080p/hevc_$k.mkv"); files+=("$media/1080p/hevc_$k.mkv"); done
  for ((round = 1; round <= ${ROUNDS:-2}; round++)); do
    local s
    s=$(ff_cpu $((cores / 9 > 0 ? cores / 9 : 1)) "${files[@]}"); echo "ffmpeg 9 streams on the CPU: $s s = $(fps $((9 * n)) $s) frames/s"
    s=$(ff_cpu 0 "${files[@]}"); echo "ffmpeg 9 streams on the CPU (threads auto): $s s = $(fps $((9 * n)) $s) frames/s"
    s=$(ff_nvdec "${files[@]}"); echo "ffmpeg 9 streams on NVDEC: $s s = $(fps $((9 * n)) $s) frames/s"
    for k in 3 5 7; do
      s=$(ff_split $k $(( cores / (9 - k) )) "${files[@]}"); echo "ffmpeg $k on NVDEC, $((9 - k)) on the CPU: $s s = $(fps $((9 * n)) $s) frames/s"
    done
    for mode in cpu nvdec auto; do
      s=$(wall twinmaf -r "$r" "${dis[@]}" --decode $mode -q)
      echo "twinmaf 8 encodes --decode $mode: $s s = $(fps $((9 * n)) $s) decoded frames/s ($(fps $((8 * n)) $s) scored/s)"
    done
  done
  twinmaf -r "$r" "${dis[@]}" --decode auto --profile --verbose -q 2>&1 | grep -v "^twinmaf: decode"
  echo "== AV1 (SVT-AV1, ${FRAMES:-240} frames 1080p): dav1d"
  for a in av1_1; do
    local f=$media/1080p/$a.ivf s
    s=$(wall ffmpeg -nostdin -v error -threads "$cores" -c:v libdav1d -i "$f" -f null -)
    echo "ffmpeg -c:v libdav1d -threads $cores $a: $s s = $(fps $n $s) fps"
    twinmaf -r "$r" -d "$f" --profile --verbose -q 2>&1 | grep -E "decode"
  done
}

case $what in
  checks) checks ;;
  4k) perf_4k ;;
  1080p) perf_1080p ;;
  all) checks; perf_4k; perf_1080p ;;
esac
if [[ -s $work/wall_failed ]]; then
  while read -r line; do fail "timed run failed: $line"; done <"$work/wall_failed"
fi
rm -rf "$work"
if ((${#failed[@]})); then
  echo "device_decode: ${#failed[@]} failed: ${failed[*]}"
  exit 1
fi
echo "device_decode: all passed"
