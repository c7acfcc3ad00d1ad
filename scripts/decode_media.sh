#!/bin/bash
# decode_media.sh OUT [4k|1080p|small] — the compressed inputs the decode
# measurements and the NVDEC tests run on (scripts/device_decode.sh), made
# here with x264/x265/SVT-AV1/libvpx from the 1080p golden clip's photo,
# enlarged a little and panned (a moving crop) with temporal grain, so every
# frame differs and the bitrates are those of real encodes. 60 fps, a
# keyframe every 2 s (streaming practice).
#   4k:    480 frames, ref.mkv H.264 18 Mbit/s, dis.mkv HEVC 15 Mbit/s
#   1080p: 240 frames (FRAMES; a keyframe every GOP frames, 120), ref.mkv H.264 8 Mbit/s, hevc_1..8.mkv HEVC 0.5..4 Mbit/s
#          (a ladder), av1_1..2.ivf SVT-AV1
#   small: 48 frames 1080p each: HEVC 10-bit (ref, dis), HEVC 4:4:4, VP9, H.264
#          yuvj (full range) -- the layouts NVDEC takes, for sample equality
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: decode_media.sh OUT [4k|1080p|small]}
set_=${2:-small}
mkdir -p "$out"
src=tests/data/clips/kleiber_1920x1080_420p8_24f.mkv
ff() { ffmpeg -nostdin -v error -y "$@"; }
export SVT_LOG=1
# The source: N frames of W x H, 4:2:0 8-bit unless PIX is given.
source_args() {  # frames w h
  local mw=$(( $2 * 11 / 10 / 2 * 2 )) mh=$(( $3 * 11 / 10 / 2 * 2 ))
  echo "-stream_loop -1 -i $src -frames:v $1 -vf setpts=N/60/TB,scale=$mw:$mh:flags=bicubic,crop=$2:$3:x='mod(n*3,$(( mw - $2 )))':y='mod(n*2,$(( mh - $3 )))',noise=alls=6:allf=t -r 60"
}
x265p='log-level=error:keyint=120:min-keyint=120'
case $set_ in
  4k)
    # shellcheck disable=SC2046
    ff $(source_args 480 3840 2160) -c:v libx264 -preset faster -b:v 18M -maxrate 22M -bufsize 36M -g 120 "$out/ref.mkv"
    ff -i "$out/ref.mkv" -c:v libx265 -preset superfast -b:v 15M -x265-params "$x265p:vbv-maxrate=18000:vbv-bufsize=30000" "$out/dis.mkv"
    ;;
  1080p)
    # shellcheck disable=SC2046
    ff $(source_args "${FRAMES:-240}" 1920 1080) -c:v libx264 -preset faster -b:v 8M -maxrate 10M -bufsize 16M -g "${GOP:-120}" "$out/ref.mkv"
    x265p="log-level=error:keyint=${GOP:-120}:min-keyint=${GOP:-120}"
    k=1
    for rate in 500 1000 1500 2000 2500 3000 3500 4000; do
      ff -i "$out/ref.mkv" -c:v libx265 -preset superfast -b:v ${rate}k -x265-params "$x265p" "$out/hevc_$k.mkv"
      k=$((k + 1))
    done
    ff -i "$out/ref.mkv" -c:v libsvtav1 -preset 10 -b:v 2M -g 120 "$out/av1_1.ivf"
    ff -i "$out/ref.mkv" -c:v libsvtav1 -preset 10 -b:v 4M -g 120 "$out/av1_2.ivf"
    ;;
  small)
    # shellcheck disable=SC2046
    ff $(source_args 48 1920 1080) -c:v libx264 -preset faster -crf 22 -g 120 "$out/ref8.mkv"
    ff -i "$out/ref8.mkv" -pix_fmt yuv420p10le -c:v libx265 -preset superfast -crf 16 -x265-params "$x265p" "$out/ref10.mkv"
    ff -i "$out/ref8.mkv" -pix_fmt yuv420p10le -c:v libx265 -preset superfast -crf 30 -x265-params "$x265p" "$out/dis10.mkv"
    ff -i "$out/ref8.mkv" -pix_fmt yuv444p -c:v libx265 -preset superfast -crf 24 -x265-params "$x265p" "$out/hevc444.mkv"
    ff -i "$out/ref8.mkv" -pix_fmt yuv444p -c:v libx265 -preset superfast -crf 14 -x265-params "$x265p" "$out/ref444.mkv"
    ff -i "$out/ref8.mkv" -c:v libvpx-vp9 -b:v 2M -deadline realtime -cpu-used 8 -g 120 "$out/vp9.webm"
    ff -i "$out/ref8.mkv" -c:v libx265 -preset superfast -crf 28 -x265-params "$x265p" "$out/hevc8.mp4"
    ff -i "$out/ref8.mkv" -vf scale=out_range=pc -pix_fmt yuvj420p -c:v libx264 -crf 20 "$out/full.mkv"
    ;;
  *) echo "decode_media.sh: unknown set $set_" >&2; exit 2 ;;
esac
ls -la "$out"
