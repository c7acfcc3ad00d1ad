#!/bin/bash
# Installs the dependencies, builds twinmaf, and scores a sample pair shipped
# in the repository (ffmpeg's testsrc2 pattern against its x264 CRF 28 encode).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/configure.sh release
cmake --build --preset release
clips=tests/data/clips
./build/release/twinmaf -r $clips/synth_576x324_420p8_48f.mkv -d $clips/synth_576x324_420p8_48f__x264crf28.mkv \
  "$@"
