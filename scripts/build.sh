#!/usr/bin/env bash
# Set-up plus build: installs what is missing (scripts/setup.sh), then configures and builds
# everything into build/ (extra arguments go to CMake, e.g. -DFOURIERLAB_BUILD_BENCH=OFF).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build
