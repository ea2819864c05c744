#!/usr/bin/env bash
# Run HERE (Debian 12, after scripts/setup.sh), before a GPU check: gathers, in git-ignored
# folders, everything the GPU machine (no registry, no network) lacks, to be named in the device
# call's carry:
#   .debs/       Qt, QCustomPlot and the header-only packages as .deb files (fetch_debs.sh)
#   .gpu-carry/  the TinyShakespeare corpus and the FourierQK author's training script, for
#                the throughput side by side (bench/fourier_qk_author_throughput.py); the CUDA
#                runtime's crt/ headers (the nvidia-cuda-crt wheel of CUDA 13.0, the machine's
#                PyTorch's), which its Python environment lacks and CUDA graphs compile against
#
#   scripts/gpu/prepare_carry.sh AUTHOR_REPO [CORPUS]
#
# AUTHOR_REPO is a clone (or bare git folder) of AthanasiosZeris/energy-gated-attention;
# CORPUS defaults to ../shared/data/tinyshakespeare.txt. Neither is ever committed here.
set -euo pipefail
cd "$(dirname "$0")/../.."
author_repo=${1:?usage: prepare_carry.sh AUTHOR_REPO [CORPUS]}
corpus=${2:-../shared/data/tinyshakespeare.txt}
author_script=paper5a_fourierqk/train_freq_ablation_fixed.py
[[ -f $corpus ]] || { echo "prepare_carry: no corpus at $corpus" >&2; exit 1; }

bash scripts/gpu/fetch_debs.sh
rm -rf .gpu-carry
mkdir -p .gpu-carry
cp "$corpus" .gpu-carry/tinyshakespeare.txt
if [[ -f $author_repo/$author_script ]]; then
  cp "$author_repo/$author_script" .gpu-carry/
else
  git --git-dir="$author_repo" show "HEAD:$author_script" > .gpu-carry/"$(basename "$author_script")" ||
    { echo "prepare_carry: $author_repo holds no $author_script" >&2; exit 1; }
fi
# 130 kB; build_lab.sh unpacks it and points CMake at its headers.
.venv/bin/pip download --quiet --disable-pip-version-check --no-deps --dest .gpu-carry \
  "nvidia-cuda-crt==${CUDA_CRT_VERSION:-13.0.88}"
echo "prepare_carry: carry [.debs, .gpu-carry]: $(du -shc .debs .gpu-carry | tail -1 | cut -f1)" \
  "(a device call carries at most 64 MiB with the working tree)"
