#!/usr/bin/env bash
# Idempotent set-up: installs the Debian packages FourierLab needs, only those missing.
# Usage: scripts/setup.sh            (uses sudo when not root)
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libtorch-dev                # LibTorch 1.13 (CPU)
  libopenblas0-openmp         # fast BLAS for LibTorch (the reference BLAS is ~15x slower)
  libsqlite3-dev
  nlohmann-json3-dev libcli11-dev
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqcustomplot-dev
  libgl-dev                   # Qt6Gui's CMake config wants OpenGL headers
  slurm-wlm munge             # the Slurm suite's one-node cluster (scripts/slurm/local-cluster.sh)
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# LibTorch must use OpenBLAS, not the reference BLAS, through the libblas.so.3 alternative.
blas_alt=$(update-alternatives --list libblas.so.3-x86_64-linux-gnu 2>/dev/null | grep openblas | head -n1 || true)
if [ -n "$blas_alt" ]; then
  current=$(readlink -f /etc/alternatives/libblas.so.3-x86_64-linux-gnu 2>/dev/null || true)
  if [ "$current" != "$(readlink -f "$blas_alt")" ]; then
    $SUDO update-alternatives --set libblas.so.3-x86_64-linux-gnu "$blas_alt" >&2
  fi
fi
