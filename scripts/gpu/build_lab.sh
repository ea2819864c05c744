#!/usr/bin/env bash
# Run THERE (a GPU machine with PyTorch 2.x in its Python, no Qt, no registry), after
# scripts/gpu/fetch_debs.sh HERE: unpacks .debs/ into a private prefix and builds the lab against
# that machine's own PyTorch, into build-gpu/. LibTorch comes from the machine's `torch` package,
# not from .venv.
#
#   scripts/gpu/build_lab.sh [TARGET...]     no target: everything (window, CLI, tests, benchmarks)
#
# Environment: FOURIERLAB_TORCH_DIR (default: python3's torch package), BUILD_DIR (build-gpu),
# BENCH_CORPUS (the corpus bench_transformer trains on; default .gpu-carry/tinyshakespeare.txt,
# which scripts/gpu/prepare_carry.sh puts there).
set -euo pipefail
cd "$(dirname "$0")/../.."
build_dir=${BUILD_DIR:-build-gpu}
prefix=/tmp/fourierlab-deps
mkdir -p "$prefix"
for deb in .debs/*.deb; do dpkg -x "$deb" "$prefix"; done
torch_dir=${FOURIERLAB_TORCH_DIR:-$(python3 -c 'import importlib.util as u; print(u.find_spec("torch").submodule_search_locations[0])')}
export PATH="$prefix/usr/lib/qt6/libexec:$prefix/usr/bin:$PATH"  # moc, uic, rcc
# Debian 12 still installs some libraries (libdbus, libz, liblzma, …) under /lib, not /usr/lib.
libs="$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu"
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Every library the prefix's programs and libraries load is in the prefix, or is the C library
# or the compiler's runtime, which the machine has: else the link fails later, less clearly.
glibc='^(ld-linux-x86-64\.so\.2|lib(c|dl|m|pthread|resolv|rt|util)\.so\.[0-9]+|libgcc_s\.so\.1|libstdc\+\+\.so\.6)$'
needed=$( (find "$prefix" -type f \( -name '*.so*' -o -path '*/bin/*' -o -path '*/libexec/*' \) \
             -exec readelf -d {} + 2> /dev/null || true) | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u)
missing=()
for soname in $needed; do
  [[ $soname =~ $glibc || -e $prefix/usr/lib/x86_64-linux-gnu/$soname ||
     -e $prefix/lib/x86_64-linux-gnu/$soname ]] || missing+=("$soname")
done
((${#missing[@]} == 0)) ||
  { echo "build_lab: .debs lacks ${missing[*]}; run scripts/gpu/fetch_debs.sh again" >&2; exit 1; }
# The CUDA runtime's crt/ headers, carried as a wheel (prepare_carry.sh): without them the
# machine's runtime headers do not compile and CUDA steps run without graphs.
crt=()
for wheel in .gpu-carry/nvidia_cuda_crt-*.whl; do
  [[ -f $wheel ]] || continue
  rm -rf "$prefix/cuda-crt" && mkdir -p "$prefix/cuda-crt"
  python3 -m zipfile -e "$wheel" "$prefix/cuda-crt"
  include=$(dirname "$(find "$prefix/cuda-crt" -path '*/include/crt' -type d | head -1)")
  [[ $include != . ]] && crt=(-DFOURIERLAB_CUDA_CRT_INCLUDE="$include")
done
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DFOURIERLAB_TORCH_DIR="$torch_dir" "${crt[@]}" \
  -DFOURIERLAB_BENCH_CORPUS="$PWD/${BENCH_CORPUS:-.gpu-carry/tinyshakespeare.txt}" \
  -DCMAKE_PREFIX_PATH="$prefix/usr;$prefix/usr/lib/x86_64-linux-gnu/cmake" \
  -DSQLite3_INCLUDE_DIR="$prefix/usr/include" \
  -DSQLite3_LIBRARY="$prefix/usr/lib/x86_64-linux-gnu/libsqlite3.so.0"
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"
# The Qt platform plugins (offscreen, xcb) and the font lie in the prefix, not where Qt and
# fontconfig were built to look.
cat > "$prefix/fonts.conf" << EOF
<?xml version="1.0"?>
<fontconfig><dir>$prefix/usr/share/fonts</dir><cachedir>$prefix/fontconfig-cache</cachedir></fontconfig>
EOF
{
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  echo "QT_PLUGIN_PATH=$prefix/usr/lib/x86_64-linux-gnu/qt6/plugins"
  echo "FONTCONFIG_FILE=$prefix/fonts.conf"
} > "$build_dir/runtime.env"
