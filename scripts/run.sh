#!/usr/bin/env bash
# The main job: set up, build, and open the desktop lab with its ready demo: the Fourier head
# paper's comparison on gmm2 (a linear head against Fourier heads with N = 4, 12, 20, same data
# and seed), training live side by side, recorded in the default run store.
# Arguments go to `fourierlab` (e.g. --db PATH). Headless: build/app/fourierlab-cli.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec build/app/fourierlab --start fourier-head --compare "$@"
