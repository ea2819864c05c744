#!/usr/bin/env bash
# Builds the fuzz targets in fuzz/ with clang (libFuzzer, ASan, UBSan) into build-fuzz/ and runs
# each for SECONDS (default 60) on a copy of its committed corpus in fuzz/corpus/. A crash, a
# sanitizer report, a leak or a hang (one input over 10 s) fails with the reproducer saved in
# build-fuzz/; otherwise each target prints its executions and coverage.
# The seed is fixed (FUZZ_SEED, default 1) so that a red run is the change's, reproducible; set
# FUZZ_SEED=0 for a fresh random seed when hunting.
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
cmake -S fuzz -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz >/dev/null
for target in config study_spec store_rows checkpoint; do
  corpus=build-fuzz/corpus-$target
  rm -rf "$corpus" && mkdir -p "$corpus" && cp fuzz/corpus/$target/* "$corpus"/
  log=build-fuzz/fuzz_$target.log
  if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
      build-fuzz/fuzz_$target -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix=build-fuzz/crash-$target- -print_final_stats=1 "$corpus" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz: fuzz_$target failed (reproducer: build-fuzz/crash-$target-*)" >&2
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
  echo "fuzz: fuzz_$target: $runs executions in ${seconds} s, $cov edges, no crash, leak or hang"
done
