#!/bin/bash
# ffmpeg_device.sh WORKDIR — the FFmpeg a GPU host without Debian's libraries
# decodes with: Debian 12's FFmpeg 5.1 source (the ABI of the headers twinmaf
# compiles against, so the same sonames), built shared with only what scoring
# encodes needs: the H.264, HEVC, VP9 and AV1 decoders (AV1 through dav1d, and
# the native one for NVDEC), the NVDEC hwaccels of all four, their parsers, the
# mov/mp4, Matroska/WebM and IVF demuxers, swscale, and an `ffmpeg` to measure
# decode rates with (null muxer, hwdownload). NVDEC's dynamic loader comes from
# trixie's nv-codec-headers; libdav1d.so.6 (Debian's) is copied beside the
# libraries. Needs nasm and libdav1d-dev. Prints WORKDIR/out: bin/ffmpeg and
# lib/ (found through LD_LIBRARY_PATH, as .device/run.sh sets it). About 5
# minutes on 2 cores the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:?usage: ffmpeg_device.sh WORKDIR}
mkdir -p "$work"
work=$(cd "$work" && pwd)
scripts/debian_source.sh bookworm ffmpeg "$work/ffmpeg"
scripts/debian_source.sh trixie nv-codec-headers "$work/nv" orig
make -C "$work/nv/src" PREFIX="$work/nv/prefix" install >/dev/null
export PKG_CONFIG_PATH=$work/nv/prefix/lib/pkgconfig

out=$work/out
build=$work/ffmpeg/build
args=(--prefix="$out" --enable-shared --disable-static --disable-everything --disable-autodetect --disable-doc
  --disable-network --disable-debug --disable-ffprobe --disable-ffplay --disable-avdevice --disable-postproc
  --enable-ffnvcodec --enable-cuda --enable-nvdec --enable-libdav1d
  --enable-hwaccel=h264_nvdec,hevc_nvdec,vp9_nvdec,av1_nvdec
  --enable-decoder=h264,hevc,vp9,av1,libdav1d,rawvideo --enable-parser=h264,hevc,vp9,av1
  --enable-demuxer=mov,matroska,ivf,rawvideo --enable-muxer=null,rawvideo --enable-encoder=wrapped_avframe,rawvideo
  --enable-filter=buffer,buffersink,null,format,hwdownload,scale --enable-protocol=file,pipe)
mkdir -p "$build"
if [[ ! -x $out/bin/ffmpeg || "$(cat "$build/configured" 2>/dev/null)" != "${args[*]}" ]]; then
  (cd "$build" && ../src/configure "${args[@]}" >configure.log 2>&1) || { tail -20 "$build/configure.log" >&2; exit 1; }
  for f in H264_NVDEC_HWACCEL HEVC_NVDEC_HWACCEL VP9_NVDEC_HWACCEL LIBDAV1D_DECODER MATROSKA_DEMUXER MOV_DEMUXER; do
    grep -q "define CONFIG_$f 1" "$build/config_components.h" "$build/config.h" 2>/dev/null ||
      { echo "ffmpeg_device.sh: configure did not enable ${f,,}" >&2; exit 1; }
  done
  make -C "$build" -j"${JOBS:-2}" >"$build/make.log" 2>&1 || { tail -20 "$build/make.log" >&2; exit 1; }
  make -C "$build" install >/dev/null
  cp -L "$(ldconfig -p | awk '/libdav1d\.so\.6 .*x86-64/ {print $NF; exit}')" "$out/lib/"
  echo "${args[*]}" > "$build/configured"
fi
echo "$out"
