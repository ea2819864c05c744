#!/usr/bin/env bash
# Idempotent set-up: installs the Debian packages FourierLab needs, only those missing, and
# LibTorch: PyTorch's torch wheel, the version pinned in scripts/torch-requirement.txt, into the
# project's own virtual environment .venv (never the system Python).
# Usage: scripts/setup.sh            (uses sudo when not root)
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  python3-venv                # the project-local environment that holds the torch wheel
  libopenblas0-openmp         # our small matrix products (core/engine/blas_gemm.h): half MKL's cost
  libsqlite3-dev
  zlib1g-dev                  # the checkpoints' CRC-32 (core/optim/checkpoint_file.h)
  nlohmann-json3-dev libcli11-dev
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqcustomplot-dev
  libgl-dev                   # Qt6Gui's CMake config wants OpenGL headers
  slurm-wlm munge             # the Slurm suite's one-node cluster (scripts/slurm/local-cluster.sh)
  clang-14 libclang-rt-14-dev # the fuzz targets: libFuzzer with ASan and UBSan (scripts/fuzz.sh)
  clang-format-14             # the format check (scripts/check_format.sh): 14 is the format's version
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

# LibTorch. pip skips the download when the pinned version is already there; its cache keeps
# the wheels (about 3.5 GB with the CUDA libraries) for the next fresh environment.
cd "$(dirname "$0")/.."
requirement=scripts/torch-requirement.txt
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating the virtual environment .venv" >&2
  /usr/bin/python3 -m venv .venv
fi
if ! .venv/bin/pip install --quiet --disable-pip-version-check --progress-bar off \
    -r "$requirement"; then
  echo "setup: could not install $(grep -v '^#' "$requirement") into .venv (see pip's message above)" >&2
  exit 1
fi
