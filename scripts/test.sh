#!/bin/bash
# Installs the dependencies, builds everything (the CUDA code too when nvcc is
# there), and runs the whole test suite. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/configure.sh release
cmake --build --preset release
ctest --preset release -j2 --label-exclude full
