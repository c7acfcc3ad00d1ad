#!/bin/bash
# device_capi.sh — the C API on the GPU host (docs/capi.md), from the
# repository root of a device run that carries .device (scripts/device_bundle.sh):
#   .device/run.sh .device/device_capi.sh
# 1. capi_cuda: FFmpeg's libvmaf_cuda call sequence (device pictures in a
#    CUcontext of its own) and pinned pictures == a CPU context.
# 2. With .device/bin/ffmpeg (FFMPEG_CUDA=1 scripts/device_bundle.sh): FFmpeg's
#    libvmaf_cuda filter on NVDEC-decoded frames of two repository clip pairs
#    (576x324 48 frames, 1080p 1 frame) == its libvmaf filter on the CPU,
#    every value of its JSON; fps of both and of the twinmaf CLI on the same
#    frames (raw) with --backend cuda; then 480 raw 1080p frames through
#    hwupload_cuda + libvmaf_cuda beside the CLI.
# Exit 1 on a difference.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
clips=$here/clips
status=0
read -r ref dis w h layout bpc frames < <(grep '^s420_' "$clips/clips.txt")
capi_cuda "$clips/$ref" "$clips/$dis" "$w" "$h" "$bpc" || status=1

command -v ffmpeg >/dev/null || { echo "device_capi: FAIL: no ffmpeg in the bundle (step 2 cannot run)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timed() {  # LABEL command...: runs it, its start and end times into $tmp/LABEL.s
  local label=$1 t0
  shift
  t0=$(date +%s.%N)
  "$@" 2>"$tmp/$label.log" || { grep -iE "error|unsupported|fail" "$tmp/$label.log" | head -8 >&2; return 1; }
  echo "$t0 $(date +%s.%N)" > "$tmp/$label.s"
}
# pair DIS REF W H [FRAMES]: the libvmaf_cuda filter (NVDEC-decoded distorted; the
# lossless reference is decoded on the CPU and uploaded: NVDEC has no High
# 4:4:4 Predictive) == the libvmaf filter on the CPU, every value of the
# result files; the twinmaf CLI on the same frames (raw) beside them.
pair() {
  local dis=$1 ref=$2 w=$3 h=$4 cut=() cli_cut=()
  if [[ -n ${5:-} ]]; then cut=(-frames:v "$5"); cli_cut=(--frame_cnt "$5"); fi
  # Frames pair by index, as libvmaf's CLI pairs them (x264's B-frames start
  # the distorted file's timestamps later).
  local n='setpts=N/(25*TB)'
  rm -f "$tmp"/*.json "$tmp"/*.s
  timed cpu ffmpeg -nostdin -i "$dis" -i "$ref" \
    -lavfi "[0:v]$n[d];[1:v]$n[r];[d][r]libvmaf=log_fmt=json:log_path=$tmp/cpu.json" "${cut[@]}" -f null - || return 1
  # NVDEC's NV12 surfaces become yuv420p on the device (scale_cuda).
  decoder="NVDEC"
  if ! timed cuda ffmpeg -nostdin -init_hw_device cuda=cu -filter_hw_device cu \
      -hwaccel cuda -hwaccel_device cu -hwaccel_output_format cuda -i "$dis" -i "$ref" \
      -lavfi "[0:v]$n,scale_cuda=format=yuv420p[d];[1:v]$n,format=yuv420p,hwupload_cuda[r];[d][r]libvmaf_cuda=log_fmt=json:log_path=$tmp/cuda.json" \
      "${cut[@]}" -f null -; then
    echo "device_capi: NVDEC decoding failed (above); both inputs decoded on the CPU and uploaded instead"
    decoder="CPU decoding + hwupload_cuda"
    timed cuda ffmpeg -nostdin -init_hw_device cuda=cu -filter_hw_device cu -i "$dis" -i "$ref" \
      -lavfi "[0:v]$n,format=yuv420p,hwupload_cuda[d];[1:v]$n,format=yuv420p,hwupload_cuda[r];[d][r]libvmaf_cuda=log_fmt=json:log_path=$tmp/cuda.json" \
      "${cut[@]}" -f null - || return 1
  fi
  # (pair runs in an || list, where set -e stops nothing: each step returns on failure.)
  ffmpeg -nostdin -v error -i "$ref" -f rawvideo -pix_fmt yuv420p -y "$tmp/ref.yuv" || return 1
  ffmpeg -nostdin -v error -i "$dis" -f rawvideo -pix_fmt yuv420p -y "$tmp/dis.yuv" || return 1
  twinmaf -r "$tmp/ref.yuv" -d "$tmp/dis.yuv" -w "$w" -h "$h" -p 420 -b 8 "${cli_cut[@]}" --backend cuda --json -o "$tmp/cli.json" \
    2>"$tmp/cli.log" >/dev/null || { cat "$tmp/cli.log" >&2; return 1; }
  python3 - "$tmp" "$decoder" "${w}x$h" <<'EOF'
import json, sys
tmp, decoder, size = sys.argv[1:]
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
print(f"device_capi: ffmpeg libvmaf_cuda ({decoder}) vs libvmaf on the CPU, {n} frames {size}: "
      f"every value {'==' if same else '!='}; vmaf mean {mean('cuda')} (cpu {mean('cpu')}, CLI {mean('cli')}); "
      f"backends {runs['cuda'].get('backends')}")
print(f"device_capi: fps (whole ffmpeg run, decoding included): libvmaf_cuda {n / secs['cuda']:.1f}, "
      f"libvmaf cpu {n / secs['cpu']:.1f}; twinmaf CLI --backend cuda on raw frames: {runs['cli'].get('fps')}")
sys.exit(0 if same else 1)
EOF
}
pair tests/data/clips/synth_576x324_420p8_48f__x264crf38.mkv tests/data/clips/synth_576x324_420p8_48f.mkv 576 324 || status=1
# (The repository's 1080p references hold one frame.)
pair tests/data/clips/kleiber_1920x1080_420p8_24f__x264crf28.mkv tests/data/clips/kleiber_1920x1080_420p8_24f.mkv 1920 1080 1 ||
  status=1
# Throughput on device frames: 480 raw 1080p frames uploaded by hwupload_cuda
# and scored by libvmaf_cuda (device pictures: no host copy), beside the
# twinmaf CLI on the same files; whole processes.
python3 "$here/device_gen.py" 1920 1080 480 "$tmp/r.yuv" "$tmp/d.yuv" 30
raw=(-f rawvideo -pix_fmt yuv420p -s 1920x1080 -r 25)
t0=$(date +%s.%N)
ffmpeg -nostdin -v error -init_hw_device cuda=cu -filter_hw_device cu "${raw[@]}" -i "$tmp/d.yuv" "${raw[@]}" -i "$tmp/r.yuv" \
  -lavfi "[0:v]hwupload_cuda[d];[1:v]hwupload_cuda[r];[d][r]libvmaf_cuda=log_fmt=json:log_path=$tmp/raw_cuda.json" -f null - ||
  status=1
t1=$(date +%s.%N)
twinmaf -r "$tmp/r.yuv" -d "$tmp/d.yuv" -w 1920 -h 1080 -p 420 -b 8 --backend cuda --json -o "$tmp/raw_cli.json" -q ||
  status=1
t2=$(date +%s.%N)
python3 - "$tmp" "$t0" "$t1" "$t2" <<'EOF' || status=1
import json, sys
tmp, t0, t1, t2 = sys.argv[1], *map(float, sys.argv[2:])
a, b = (json.load(open(f"{tmp}/raw_{k}.json")) for k in ("cuda", "cli"))
same = [f["metrics"]["vmaf"] for f in a["frames"]] == [f["metrics"]["vmaf"] for f in b["frames"]]
print(f"device_capi: 480 raw 1080p frames: ffmpeg hwupload_cuda + libvmaf_cuda {480 / (t1 - t0):.1f} fps "
      f"({t1 - t0:.3f} s), twinmaf CLI --backend cuda {480 / (t2 - t1):.1f} fps ({t2 - t1:.3f} s); "
      f"per-frame vmaf {'==' if same else '!='}")
sys.exit(0 if same else 1)
EOF
exit $status
