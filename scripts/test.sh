#!/usr/bin/env bash
# Set up, build, run the fuzz targets for a bounded time, then the whole test suite (Qt Test
# suites through ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# Formatting first among the checks: it takes seconds and names every unformatted file.
bash scripts/check_format.sh
export QT_QPA_PLATFORM=offscreen
# The fuzz targets (fuzz/), 60 s each from their committed corpus: no crash, leak or hang.
bash scripts/fuzz.sh "${FOURIERLAB_FUZZ_SECONDS:-60}"
# One test per core: most are single-threaded subprocesses (test_slurm_cluster runs alone).
ctest --test-dir build --output-on-failure --timeout 600 -j "$(nproc)" "$@"
