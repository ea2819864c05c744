#!/usr/bin/env bash
# Run THERE (a GPU machine with PyTorch 2.x, no Qt, no registry): unpacks .debs/ into a private
# prefix and builds the Qt-free core/, experiments/, fourierlab-cli and the benchmarks against
# PyTorch's bundled CUDA LibTorch, into build-gpu/.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=/tmp/fourierlab-deps
mkdir -p "$prefix"
for deb in .debs/*.deb; do dpkg -x "$deb" "$prefix"; done
# Prefer the machine's own libsqlite3 (Python links it); the .deb's needs Debian 12's glibc.
sqlite_lib=$(ldconfig -p | awk '/libsqlite3\.so\.0 .*x86-64/ {print $NF; exit}')
[ -n "$sqlite_lib" ] || sqlite_lib=$(ls "$prefix"/usr/lib/x86_64-linux-gnu/libsqlite3.so.0)
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
cmake -S . -B build-gpu -DFOURIERLAB_CORE_ONLY=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$prefix/usr" \
  -DSQLite3_INCLUDE_DIR="$prefix/usr/include" -DSQLite3_LIBRARY="$sqlite_lib" \
  -DTORCH_CUDA_ARCH_LIST=9.0
cmake --build build-gpu -j "$(nproc)"
