#!/bin/bash
# Installs the dependencies, builds everything (the CUDA code too when nvcc is
# there), and runs the whole test suite. CI runs exactly this:
#   1. the release build: unit, api, layers, cli, golden (CI subset), twin
#      (CPU-only machines skip the GPU half);
#   2. the asan preset (ASan + UBSan, DASSERTs on): unit, api, cli, golden (a
#      sample of kinds that reaches every feature: TWINMAF_GOLDEN_CI_KINDS);
#   3. every fuzzer for FUZZ_SECONDS (default 60) from its seed corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/configure.sh release
cmake --build --preset release
ctest --preset release -j2 --label-exclude full
cmake --preset asan >/dev/null
cmake --build --preset asan --target twinmaf twinmaf_unit twinmaf_api twinmaf_noiseclip
ctest --preset asan -j2 -R '^(unit|api|cli|cli_batch|golden_prepare|golden)$'
scripts/fuzz.sh "${FUZZ_SECONDS:-60}"
