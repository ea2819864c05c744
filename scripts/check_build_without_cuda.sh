#!/usr/bin/env bash
# Proves that the lab configures, builds and runs where only the NVIDIA driver (or nothing) is
# installed, with the CUDA toolkit out of sight: in a private mount namespace (root needed),
# every /usr/local/cuda* folder is an empty tmpfs and nvcc wrappers are masked by /dev/null, PATH loses its
# CUDA entries and CUDA_HOME, CUDA_PATH and CUDAToolkit_ROOT are unset. CMake then configures
# build/ afresh, the sources that touch devices and CUDA (CUDA graphs: against the runtime
# headers the torch wheel ships) are compiled again, the CLI, the window and the device tests
# are linked again, and test_device runs.
# Usage (after a normal build): scripts/check_build_without_cuda.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "check_build_without_cuda: needs root (a mount namespace)" >&2; exit 1; }
exec unshare --mount --propagation private bash -euo pipefail -c '
  for dir in /usr/local/cuda*/; do mount -t tmpfs none "$dir"; done
  for wrapper in $(type -a -P nvcc 2>/dev/null || true); do mount --bind /dev/null "$wrapper"; done
  export PATH=$(echo "$PATH" | tr : "\n" | grep -v cuda | paste -sd:)
  unset CUDA_HOME CUDA_PATH CUDAToolkit_ROOT LIBRARY_PATH
  if nvcc --version >/dev/null 2>&1; then echo "nvcc still runs: $(command -v nvcc)" >&2; exit 1; fi
  ls /usr/local/cuda/ | grep -q . && { echo "/usr/local/cuda is not hidden" >&2; exit 1; }
  echo "toolkit hidden: nvcc does not run, /usr/local/cuda is empty, no CUDA_HOME"
  cmake -S . -B build --fresh -G Ninja -DCMAKE_BUILD_TYPE=Release | grep "CUDA graphs" || true
  rm -f build/core/CMakeFiles/fourierlab_core.dir/engine/cuda_devices.cpp.o \
        build/core/CMakeFiles/fourierlab_core.dir/engine/device.cpp.o \
        build/core/CMakeFiles/fourierlab_core.dir/nn/transformer/mixed_precision.cpp.o \
        build/core/CMakeFiles/fourierlab_core.dir/engine/captured_step.cpp.o \
        build/app/fourierlab build/app/fourierlab-cli build/tests/test_device
  cmake --build build --target fourierlab fourierlab-cli test_device
  QT_QPA_PLATFORM=offscreen build/tests/test_device
'
