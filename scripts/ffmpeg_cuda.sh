#!/bin/bash
# ffmpeg_cuda.sh BUILD WORKDIR — a minimal FFmpeg with the libvmaf_cuda filter
# (FFmpeg 6.1 and later: Debian trixie's source package, and trixie's
# nv-codec-headers, fetched with scripts/debian_source.sh) against the
# libvmaf.so.3 of BUILD, a CUDA build of twinmaf (target vmaf). Prints the
# path of the ffmpeg it built: NVDEC (h264) decoding, hwupload_cuda and
# scale_cuda, the libvmaf and libvmaf_cuda filters, raw video and Matroska in,
# raw video and null out; it finds libvmaf.so.3 in ../lib beside it (scripts/device_bundle.sh
# puts it in .device/bin, the library in .device/lib). About 4 minutes on 2
# cores the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: ffmpeg_cuda.sh BUILD WORKDIR}
work=${2:?}
mkdir -p "$work"
work=$(cd "$work" && pwd)
grep -q '^TWINMAF_CUDA:BOOL=ON' "$build/CMakeCache.txt" ||
  { echo "ffmpeg_cuda.sh: $build is not a CUDA build" >&2; exit 2; }
cmake --build "$build" --target vmaf >/dev/null
rm -rf "$work/prefix"
cmake --install "$build" --prefix "$work/prefix" >/dev/null

scripts/debian_source.sh trixie ffmpeg "$work/ffmpeg"
scripts/debian_source.sh trixie nv-codec-headers "$work/nv" orig
make -C "$work/nv/src" PREFIX="$work/nv/prefix" install >/dev/null
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig:$work/nv/prefix/lib/pkgconfig

out=$work/ffmpeg/build
# NVDEC hands out NV12 surfaces; libvmaf_cuda takes yuv420p: scale_cuda
# converts on the device (its kernels compiled by clang, --enable-cuda-llvm).
args=(--disable-everything --disable-autodetect --disable-doc --disable-x86asm
  --disable-network --disable-debug --disable-ffprobe --disable-ffplay
  --enable-libvmaf --enable-ffnvcodec --enable-cuda --enable-cuda-llvm --enable-nvdec --enable-hwaccel=h264_nvdec
  --enable-decoder=h264,rawvideo --enable-parser=h264 --enable-demuxer=matroska,rawvideo
  --enable-muxer=null,rawvideo --enable-encoder=wrapped_avframe,rawvideo
  --enable-filter=libvmaf,libvmaf_cuda,hwupload_cuda,scale_cuda,buffer,buffersink,format,null,trim,scale,setpts,copy
  --enable-protocol=file,pipe '--extra-ldflags=-Wl,-rpath,$$ORIGIN/../lib')
mkdir -p "$out"
if [[ ! -x $out/ffmpeg || "$(cat "$out/configured" 2>/dev/null)" != "${args[*]}" ]]; then
  (cd "$out" && ../src/configure "${args[@]}" >configure.log 2>&1) || { tail -20 "$out/configure.log" >&2; exit 1; }
  for f in LIBVMAF_CUDA_FILTER SCALE_CUDA_FILTER; do
    grep -q "define CONFIG_$f 1" "$out/config_components.h" ||
      { echo "ffmpeg_cuda.sh: configure did not enable ${f,,}" >&2; exit 1; }
  done
  make -C "$out" -j"${JOBS:-1}" ffmpeg >"$out/make.log" 2>&1 || { tail -20 "$out/make.log" >&2; exit 1; }
  echo "${args[*]}" > "$out/configured"
fi
echo "$out/ffmpeg"
