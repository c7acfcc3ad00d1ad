#!/bin/bash
# fuzz.sh [SECONDS] — builds the libFuzzer targets (the fuzz preset: clang-16,
# ASan + UBSan, tests/fuzz) and runs each for SECONDS (default 600) from its
# committed seed corpus with its dictionary. New inputs go to
# build/fuzz/corpus/<name>/; a finding stops that fuzzer, leaves its input in
# build/fuzz/findings/<name>/ and makes the script exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
status=0
for name in y4m model svm cli; do
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
