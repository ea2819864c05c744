#!/usr/bin/env bash
# Set up, build, and run the whole test suite (Qt Test suites through ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
export QT_QPA_PLATFORM=offscreen
# One test per core: most are single-threaded subprocesses (test_slurm_cluster runs alone).
ctest --test-dir build --output-on-failure --timeout 600 -j "$(nproc)" "$@"
