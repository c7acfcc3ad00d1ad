#!/bin/bash
# configure.sh PRESET — configures build/PRESET; the CUDA backend is built when
# nvcc is found (also under /usr/local/cuda/bin, which is not always on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
args=()
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  args+=("-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc")
fi
cmake --preset "$preset" "${args[@]}" >/dev/null
