#!/usr/bin/env bash
# The main job: set up, build, and run the default experiment, the Fourier head paper's
# gmm2 benchmark with the Fourier head (N = 12), headless with progress on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec build/app/fourierlab-cli run fourier-head --preset paper-fourier --set dataset=gmm2 "$@"
