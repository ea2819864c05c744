#!/usr/bin/env bash
# Run HERE (a Debian machine with apt): downloads the header-only dependencies as .deb files into
# .debs/ (git-ignored), for a GPU machine that has a CUDA LibTorch but no package registry.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .debs
(cd .debs && apt-get download nlohmann-json3-dev libcli11-dev)
ls -l .debs
