#!/bin/bash
# Installs twinmaf's build and test dependencies (Debian 12 packages only).
set -euo pipefail
pkgs=(cmake ninja-build g++ pkg-config python3 xz-utils ffmpeg make dpkg-dev
      libfmt-dev nlohmann-json3-dev libcli11-dev libtbb-dev libhwy-dev libgtest-dev libbenchmark-dev
      libavformat-dev libavcodec-dev libavutil-dev libswscale-dev
      clang-16 libclang-rt-16-dev
      pybind11-dev python3-dev python3-numpy python3-pandas python3-pytest python3-dask python3-distributed
      python3-plotly chromium)  # plotly: the JavaScript --html embeds; chromium: the report's render test
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[[ ${#missing[@]} -eq 0 ]] && exit 0
sudo=$([[ $(id -u) -eq 0 ]] || echo sudo)
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
