#!/bin/bash
# fuzz.sh [SECONDS [NAME...]] — builds the libFuzzer targets (the fuzz preset:
# clang, ASan + UBSan, FFmpeg's libraries uninstrumented, tests/fuzz) and
# runs each (or the NAMEs: y4m model svm cli jobs access_points container push)
# for SECONDS (default 600) from its committed seed corpus with its
# dictionary. New inputs go to
# build/fuzz/corpus/<name>/; a finding stops that fuzzer, leaves its input in
# build/fuzz/findings/<name>/ and makes the script exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(y4m model svm cli jobs access_points container push)
# Symbolized stacks in findings: the sanitizers do not find llvm-symbolizer
# on PATH by themselves.
sym=${ASAN_SYMBOLIZER_PATH:-$(command -v llvm-symbolizer-16 || command -v llvm-symbolizer || true)}
[[ -n $sym ]] && export ASAN_SYMBOLIZER_PATH=$sym
# The newest versioned clang installed (scripts/deps.sh: 16 on Debian 12, 19
# on Debian 13, 18 on Ubuntu 24.04).
clang=$(compgen -c clang++- | grep -E '^clang\+\+-[0-9]+$' | sort -t- -k2 -n | tail -1)
[[ -n $clang ]] || { echo "fuzz.sh: no clang++-N on PATH (scripts/deps.sh installs it)" >&2; exit 1; }
cmake --preset fuzz -DCMAKE_C_COMPILER="${clang/clang++/clang}" -DCMAKE_CXX_COMPILER="$clang" >/dev/null
cmake --build --preset fuzz
status=0
for name in "${names[@]}"; do
  work=build/fuzz/corpus/$name
  found=build/fuzz/findings/$name
  mkdir -p "$work" "$found"
  echo "fuzz: $name for ${secs}s"
  if ! build/fuzz/tests/fuzz/${name}_fuzzer -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 \
      -dict="tests/fuzz/$name.dict" -artifact_prefix="$found/" -print_final_stats=1 \
      "$work" "tests/fuzz/corpus/$name" > "build/fuzz/$name.log" 2>&1; then
    status=1
    tail -n 40 "build/fuzz/$name.log"
  fi
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)|^Done|#[0-9]+.*DONE' "build/fuzz/$name.log" | tail -n 3 || true
done
exit $status
