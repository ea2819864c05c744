#!/usr/bin/env bash
# Run HERE (a Debian machine with apt): downloads the build-time dependencies a GPU machine
# without a package registry lacks, as .deb files into .debs/ (git-ignored): the header-only
# JSON and CLI libraries, SQLite's headers and, as a fallback, its library.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .debs
(cd .debs && apt-get download nlohmann-json3-dev libcli11-dev libsqlite3-dev libsqlite3-0)
ls -l .debs
