#!/bin/bash
# make_testdata.sh SHARED_GOLDEN_DIR — rebuilds tests/data from the libvmaf
# golden set (../shared/golden): the golden runs as one tar.xz, and the clips
# the CI golden test decodes, kept small: reference clips are cut to the first
# N frames and re-encoded losslessly (H.264 -qp 0, bit-exact on decode); coded
# distortions keep their original bitstreams. clips.tsv records N per clip.
# Needs ffmpeg (with libx264). Not run by CI: its output is committed.
set -euo pipefail
golden=${1:?usage: make_testdata.sh SHARED_GOLDEN_DIR}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/clips
mkdir -p "$out"
# source clip -> frames kept (absent: the whole clip, original file)
declare -A keep=(
  [kleiber_576x324_420p8_48f.mkv]=12 [kleiber_576x324_420p8_48f__scale050.mkv]=12
  [kleiber_576x324_422p8_48f.mkv]=8 [kleiber_576x324_422p8_48f__scale050.mkv]=8
  [kleiber_576x324_444p8_48f.mkv]=8 [kleiber_576x324_444p8_48f__scale050.mkv]=8
  [kleiber_1920x1080_420p8_24f.mkv]=1 [kleiber_1920x1080_420p10_24f.mkv]=1
)
# 3840x2160 stays out of the repository (4 MB a frame even losslessly coded):
# the full golden test (TWINMAF_GOLDEN_DIR) covers it.
printf 'file\tsource\tpix_fmt\twidth\theight\tcontainer\tframes\n' > "$here/clips.tsv"
tail -n +2 "$golden/clips/CLIPS.tsv" | while IFS=$'\t' read -r file src pf w h container; do
  [[ $src == kleiber_3840x2160_* ]] && continue
  n=${keep[$src]:-}
  if [[ ! -s $out/$src ]]; then
    if [[ -n $n ]]; then
      ffmpeg -nostdin -v error -i "$golden/clips/$src" -frames:v "$n" -c:v libx264 -qp 0 \
        -preset veryslow -pix_fmt "$pf" -y "$out/$src"
    else
      cp "$golden/clips/$src" "$out/$src"
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$file" "$src" "$pf" "$w" "$h" "$container" "${n:-all}" >> "$here/clips.tsv"
done
tar -C "$golden" -cf - runs | xz -9e > "$here/golden_runs.tar.xz"
du -sh "$out" "$here/golden_runs.tar.xz"
