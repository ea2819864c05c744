#!/usr/bin/env bash
# Run HERE (Debian 12 with apt): downloads, as .deb files into .debs/ (git-ignored), what a GPU
# machine without a package registry lacks to build the whole lab, the window included: the
# header-only JSON and CLI libraries, SQLite, Qt 6 (base, SVG, Test) and QCustomPlot, with the
# libraries they load, except those every Linux system has (glibc, libstdc++, libgcc) which
# must come from the machine itself.
set -euo pipefail
cd "$(dirname "$0")/../.."
packages=(nlohmann-json3-dev libcli11-dev libsqlite3-dev qt6-base-dev qt6-base-dev-tools
          qt6-svg-dev libqcustomplot-dev libgl-dev)
base='^(libc6|libc-bin|libgcc-s1|libstdc\+\+6|gcc-12-base|libcrypt1|debconf|dpkg|perl-base|tar|coreutils)$'
mapfile -t closure < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances "${packages[@]}" | grep -E '^[a-z0-9]' | sort -u |
  grep -Ev "$base")
mkdir -p .debs
(cd .debs && apt-get download "${closure[@]}" >/dev/null)
echo "fetch_debs: $(ls .debs | wc -l) packages, $(du -sh .debs | cut -f1) in .debs/"
