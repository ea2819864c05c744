#!/usr/bin/env bash
# Run THERE (a GPU machine with PyTorch 2.x in its Python, no Qt, no registry), after
# scripts/gpu/fetch_debs.sh HERE: unpacks .debs/ into a private prefix and builds the whole lab
# (window, CLI, tests, benchmarks) against that machine's own PyTorch, into build-gpu/.
# LibTorch comes from the machine's `torch` package (FOURIERLAB_TORCH_DIR), not from .venv.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=/tmp/fourierlab-deps
mkdir -p "$prefix"
for deb in .debs/*.deb; do dpkg -x "$deb" "$prefix"; done
torch_dir=$(python3 -c 'import importlib.util as u; print(u.find_spec("torch").submodule_search_locations[0])')
export PATH="$prefix/usr/lib/qt6/libexec:$prefix/usr/bin:$PATH"  # moc, uic, rcc
export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release \
  -DFOURIERLAB_TORCH_DIR="$torch_dir" \
  -DCMAKE_PREFIX_PATH="$prefix/usr;$prefix/usr/lib/x86_64-linux-gnu/cmake" \
  -DSQLite3_INCLUDE_DIR="$prefix/usr/include" \
  -DSQLite3_LIBRARY="$prefix/usr/lib/x86_64-linux-gnu/libsqlite3.so.0"
cmake --build build-gpu -j "$(nproc)"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" > build-gpu/runtime.env
