#!/bin/bash
# Installs twinmaf's build and test dependencies from the distribution:
# Debian 12 (bookworm, what CI runs), Debian 13 (trixie), Ubuntu 24.04
# (noble; universe enabled). Ubuntu 22.04's Highway (0.15) is older than
# twinmaf needs (1.0): there, install Highway >= 1.0 by hand. The CUDA
# toolkit is not installed here (docs/gpu.md: nvcc from the distribution's
# nvidia-cuda-toolkit or NVIDIA's packages; found on PATH or in
# /usr/local/cuda/bin).
set -euo pipefail
. /etc/os-release
case "${ID}:${VERSION_CODENAME:-}" in
  debian:bookworm) clang=16 ;;
  debian:trixie) clang=19 ;;
  ubuntu:noble) clang=18 ;;
  ubuntu:jammy)
    echo "deps.sh: Ubuntu 22.04's libhwy-dev (0.15) is older than Highway 1.0, which twinmaf needs" >&2
    exit 1 ;;
  *)
    echo "deps.sh: ${PRETTY_NAME:-this system} is not Debian 12/13 or Ubuntu 24.04; install the packages listed in scripts/deps.sh by hand" >&2
    exit 1 ;;
esac
pkgs=(cmake ninja-build g++ pkg-config python3 xz-utils ffmpeg make dpkg-dev git
      libfmt-dev nlohmann-json3-dev libcli11-dev libtbb-dev libhwy-dev libgtest-dev libbenchmark-dev
      libavformat-dev libavcodec-dev libavutil-dev libswscale-dev
      "clang-$clang" "libclang-rt-$clang-dev"  # the fuzzers (scripts/fuzz.sh)
      pybind11-dev python3-dev python3-pip python3-setuptools python3-wheel
      python3-numpy python3-pandas python3-pytest python3-dask python3-distributed
      python3-plotly)  # plotly: the JavaScript --html embeds
# The report's render test (tests/cli/html_render_test.py) drives Chromium;
# Ubuntu ships it as a snap, which a container or chroot cannot run.
[[ $ID == debian ]] && pkgs+=(chromium)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[[ ${#missing[@]} -eq 0 ]] && exit 0
sudo=$([[ $(id -u) -eq 0 ]] || echo sudo)
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
