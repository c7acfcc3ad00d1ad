#!/bin/bash
# device_capi.sh — the C API on the GPU host (docs/capi.md), from the
# repository root of a device run that carries .device (scripts/device_bundle.sh):
#   .device/run.sh .device/device_capi.sh
# 1. capi_cuda: FFmpeg's libvmaf_cuda call sequence (device pictures in a
#    CUcontext of its own) and pinned pictures == a CPU context.
# 2. With .device/bin/ffmpeg (FFMPEG_CUDA=1 scripts/device_bundle.sh): FFmpeg's
#    libvmaf_cuda filter on NVDEC-decoded frames of a repository clip pair (the
#    lossless reference is decoded on the CPU and uploaded: NVDEC has no
#    High 4:4:4 Predictive) == its libvmaf filter on the CPU, frame by frame
#    (every value of its JSON); fps of both, and of the
#    twinmaf CLI on the same frames (raw) with --backend cuda.
# Exit 1 on a difference.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
clips=$here/clips
status=0
read -r ref dis w h layout bpc frames < <(grep '^s420_' "$clips/clips.txt")
capi_cuda "$clips/$ref" "$clips/$dis" "$w" "$h" "$bpc" || status=1

command -v ffmpeg >/dev/null || { echo "device_capi: no ffmpeg in the bundle: step 2 skipped"; exit $status; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# (The repository's 1080p references hold one frame; this pair all 48.)
dis=tests/data/clips/synth_576x324_420p8_48f__x264crf38.mkv
ref=tests/data/clips/synth_576x324_420p8_48f.mkv
# The two files' timestamps differ (25 and 24 fps): -r 25 pairs frames by
# index, as libvmaf's CLI does.
in_dis=(-r 25 -i "$dis")
in_ref=(-r 25 -i "$ref")
timed() {  # LABEL command...: runs it, its start and end times into $tmp/LABEL.s
  local label=$1 t0
  shift
  t0=$(date +%s.%N)
  "$@" 2>"$tmp/$label.log" || { tail -5 "$tmp/$label.log" >&2; return 1; }
  echo "$t0 $(date +%s.%N)" > "$tmp/$label.s"
}
timed cpu ffmpeg -nostdin "${in_dis[@]}" "${in_ref[@]}" \
  -lavfi "[0:v][1:v]libvmaf=log_fmt=json:log_path=$tmp/cpu.json" -f null -
decoder="NVDEC"
if ! timed cuda ffmpeg -nostdin -init_hw_device cuda=cu -filter_hw_device cu \
    -hwaccel cuda -hwaccel_device cu -hwaccel_output_format cuda "${in_dis[@]}" "${in_ref[@]}" \
    -lavfi "[1:v]format=yuv420p,hwupload_cuda[r];[0:v][r]libvmaf_cuda=log_fmt=json:log_path=$tmp/cuda.json" -f null -; then
  echo "device_capi: NVDEC decoding failed (above); both inputs decoded on the CPU and uploaded instead"
  decoder="CPU decoding + hwupload_cuda"
  timed cuda ffmpeg -nostdin -init_hw_device cuda=cu -filter_hw_device cu "${in_dis[@]}" "${in_ref[@]}" \
    -lavfi "[0:v]format=yuv420p,hwupload_cuda[d];[1:v]format=yuv420p,hwupload_cuda[r];[d][r]libvmaf_cuda=log_fmt=json:log_path=$tmp/cuda.json" \
    -f null - || status=1
fi
ffmpeg -nostdin -v error -i "$ref" -f rawvideo -pix_fmt yuv420p -y "$tmp/ref.yuv"
ffmpeg -nostdin -v error -i "$dis" -f rawvideo -pix_fmt yuv420p -y "$tmp/dis.yuv"
twinmaf -r "$tmp/ref.yuv" -d "$tmp/dis.yuv" -w 576 -h 324 -p 420 -b 8 --backend cuda --json -o "$tmp/cli.json" \
  2>"$tmp/cli.log" >/dev/null || { cat "$tmp/cli.log" >&2; status=1; }
[[ -f $tmp/cuda.json && -f $tmp/cli.json ]] && python3 - "$tmp" "$decoder" <<'EOF' || status=1
import json, sys
tmp, decoder = sys.argv[1:]
runs = {k: json.load(open(f"{tmp}/{k}.json")) for k in ("cpu", "cuda", "cli")}
n = len(runs["cpu"]["frames"])
secs = {}
for k in ("cpu", "cuda"):
    t0, t1 = map(float, open(f"{tmp}/{k}.s").read().split())
    secs[k] = t1 - t0
# Every value, per frame and pooled (the GPU file also names its backends).
keys = ("frames", "pooled_metrics", "aggregate_metrics")
same = all(runs["cuda"].get(k) == runs["cpu"].get(k) for k in keys) and n > 0
mean = lambda k: repr(runs[k]["pooled_metrics"]["vmaf"]["mean"])
print(f"device_capi: ffmpeg libvmaf_cuda ({decoder}) vs libvmaf on the CPU, {n} frames 576x324: "
      f"every value {'==' if same else '!='}; vmaf mean {mean('cuda')} (cpu {mean('cpu')}, CLI {mean('cli')}); "
      f"backends {runs['cuda'].get('backends')}")
print(f"device_capi: fps (whole ffmpeg run, decoding included): libvmaf_cuda {n / secs['cuda']:.1f}, "
      f"libvmaf cpu {n / secs['cpu']:.1f}; twinmaf CLI --backend cuda on raw frames: {runs['cli'].get('fps')}")
sys.exit(0 if same else 1)
EOF
exit $status
