#!/bin/bash
# device_bundle.sh — builds the CUDA binaries for the GPU host (sm_90) into
# build/device and gathers them, the shared libraries the host lacks, the
# FFmpeg they decode with (scripts/ffmpeg_device.sh: libraries and an
# ffmpeg, NVDEC and dav1d included; that host has no Debian libraries) and a
# few raw clips for the twin tests into .device/ (git-ignored), the folder a
# device run carries.
# Run on the GPU host: .device/run.sh <command...> (sets LD_LIBRARY_PATH).
# DEVICE_BUILD=build/release reuses that tree (the release preset also builds
# for sm_90 with CUDA and FFmpeg) instead of building build/device.
# The C API too: libvmaf.so.3, capi_cuda and device_capi.sh; with
# FFMPEG_CUDA=1 also an FFmpeg with the libvmaf_cuda filter
# (scripts/ffmpeg_cuda.sh): .device/run.sh .device/device_capi.sh
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
b=${DEVICE_BUILD:-build/device}
cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTWINMAF_CUDA=ON -DTWINMAF_FFMPEG=ON \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build "$b" --target twinmaf twinmaf_twin twinmaf_bench twinmaf_unit twinmaf_gpu_bench vmaf capi_cuda
rm -rf .device && mkdir -p .device/bin .device/lib .device/clips
cp "$b"/twinmaf "$b"/tests/twinmaf_twin "$b"/tests/twinmaf_unit \
   "$b"/bench/twinmaf_bench "$b"/bench/twinmaf_gpu_bench "$b"/tests/capi/capi_cuda .device/bin/
if [[ ${FFMPEG_CUDA:-0} == 1 ]]; then
  cp "$(scripts/ffmpeg_cuda.sh "$b" build/ffmpeg-cuda)" .device/bin/
else
  ff=$(scripts/ffmpeg_device.sh build/ffmpeg-device)
  cp "$ff/bin/ffmpeg" .device/bin/
  cp -P "$ff"/lib/lib*.so.* .device/lib/
fi
strip .device/bin/*
# Libraries outside the C/C++ runtime that the binaries need.
# (libvmaf.so.3 from the build tree: ffmpeg's rpath, ../lib, finds it there.)
for b in .device/bin/*; do LD_LIBRARY_PATH=.device/lib ldd "$b"; done | awk '/=>/ && $3 ~ /^\// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux|libpthread|libdl|librt)[.-]|/\.device/' |
  while read -r lib; do cp -L "$lib" .device/lib/; done
# Real content for the twin tests: a few frames of golden clips, raw.
data=$( (ls -d build/release/testdata/clips build/testdata/clips 2>/dev/null || true) | head -1)
if [[ -n $data && -d $data ]]; then
  : > .device/clips/clips.txt
  add() {  # name ref dis w h layout bpc frames
    local bytes=$(( $8 * $9 ))
    head -c "$bytes" "$data/$2" > ".device/clips/$1_ref.yuv"
    head -c "$bytes" "$data/$3" > ".device/clips/$1_dis.yuv"
    echo "$1_ref.yuv $1_dis.yuv $4 $5 $6 $7 $8" >> .device/clips/clips.txt
  }
  add k420 kleiber_576x324_420p8_48f.yuv kleiber_576x324_420p8_48f__x264crf28.yuv 576 324 420 8 6 279936
  add k422 kleiber_576x324_422p8_48f.yuv kleiber_576x324_422p8_48f__x264crf28.yuv 576 324 422 8 4 373248
  add k444 kleiber_576x324_444p8_48f.yuv kleiber_576x324_444p8_48f__x264crf28.yuv 576 324 444 8 4 559872
  add s420 synth_576x324_420p8_48f.yuv synth_576x324_420p8_48f__x264crf45.yuv 576 324 420 8 6 279936
  # The CTC content's photo: the first frame of the 1080p golden clip.
  head -c $((1920 * 1080 * 3 / 2)) "$data/kleiber_1920x1080_420p8_24f.yuv" > .device/photo.yuv
fi
cp scripts/device_gen.py scripts/device_measure.sh scripts/device_capi.sh scripts/device_ctc.sh \
   scripts/device_ctc_gen.py scripts/device_cambi_gen.py scripts/device_sanitize.sh .device/
cat > .device/run.sh <<'EOS'
#!/bin/bash
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$here/bin:$PATH
export TWINMAF_TWIN_CLIPS=$here/clips/clips.txt
export TWINMAF_REQUIRE_GPU=1  # twin tests fail instead of skipping without a GPU
exec "$@"
EOS
chmod +x .device/run.sh
du -sh .device
