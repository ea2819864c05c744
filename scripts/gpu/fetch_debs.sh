#!/usr/bin/env bash
# Run HERE (Debian 12, after scripts/setup.sh): downloads, as .deb files into .debs/
# (git-ignored), what a GPU machine without a package registry lacks to build and run the whole
# lab, the window included: the headers, CMake files and tools of the JSON, CLI, SQLite, Qt 6 and
# QCustomPlot packages, and every library those tools and libraries load.
#
# The set is computed, not Debian's dependency closure: that closure (150 MB, with LLVM, Mesa,
# fonts, Perl, Python and Qt 5) does not fit the 64 MiB a device call carries. A build package
# brings the packages it depends on while they are build packages too (-dev); the libraries come
# from the ELF files themselves: each shared library an unpacked library or tool asks for
# (readelf's NEEDED), found here with ldconfig and mapped to its package with dpkg -S, until
# nothing new is asked for. The libraries every Linux system has (glibc, libstdc++, libgcc) come
# from the machine itself. The end checks that every library asked for is in the set.
set -euo pipefail
cd "$(dirname "$0")/../.."
build_packages=(nlohmann-json3-dev libcli11-dev libsqlite3-dev zlib1g-dev qt6-base-dev
                qt6-base-dev-tools qt6-svg-dev libqcustomplot-dev libgl-dev)
# Data no ELF file names: a font, so that the window's screenshot there shows its text
# (build_lab.sh points fontconfig at it).
data_packages=(fonts-dejavu-core)
# Never taken: the machine's own C library and compiler runtime; Qt 5 (libqcustomplot-dev
# depends on both Qt versions, the lab builds against Qt 6); the C library's headers and Perl
# (Qt's developer scripts) which the build does not use.
skip='^(libc6|libc6-dev|libc-dev|libc-bin|libgcc-s1|libstdc\+\+6|gcc-12-base|perl|perl:any|qtbase5-dev|libqcustomplot2\.1|.*qt5.*)$'

declare -A chosen=()
pending=()
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
choose() {  # choose PACKAGE...: adds each new, not skipped, installed package (a dependency that
  local p   # is not installed is virtual, as qt6-base-abi, and provided by one that is)
  for p in "$@"; do
    p=${p%%:*}
    [[ -z $p || -n ${chosen[$p]:-} || $p =~ $skip ]] && continue
    installed "$p" || continue
    chosen[$p]=1
    pending+=("$p")
  done
}
dependencies() {  # the first alternative of each Depends entry, without versions
  dpkg-query -W -f='${Depends}' "$1" | tr ',' '\n' | sed -E 's/\|.*//; s/\(.*\)//; s/ //g' | grep -v '^$' || true
}
library_cache=$(ldconfig -p)  # read once: `ldconfig -p | awk '…exit'` dies of SIGPIPE under pipefail
declare -A owner_of=()  # soname -> package, memoised
library_owner() {  # sets REPLY to the package that holds the library SONAME
  local soname=$1 path
  if [[ -z ${owner_of[$soname]:-} ]]; then
    path=$(awk -v s="$soname" '$1 == s && /x86-64/ { print $NF; exit }' <<< "$library_cache")
    [[ -n $path ]] || { echo "fetch_debs: no library $soname on this machine" >&2; exit 1; }
    owner_of[$soname]=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")" 2>/dev/null ||
                        dpkg -S "/usr$path" 2>/dev/null | head -1)
    owner_of[$soname]=${owner_of[$soname]%%:*}
  fi
  REPLY=${owner_of[$soname]}
}
needed_by_package() {  # the sonames the package's ELF files ask for
  dpkg -L "$1" | while read -r f; do
    [[ -f $f && ! -L $f ]] || continue
    readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
  done | sort -u
}

for p in "${build_packages[@]}" "${data_packages[@]}"; do
  installed "$p" || { echo "fetch_debs: $p is not installed here; run scripts/setup.sh first" >&2; exit 1; }
done
choose "${build_packages[@]}" "${data_packages[@]}"
declare -A asked=()  # soname -> the package that asked for it first
while ((${#pending[@]})); do
  p=${pending[0]}
  pending=("${pending[@]:1}")
  [[ $p == *-dev || $p == *-dev-tools ]] && mapfile -t deps < <(dependencies "$p") && choose "${deps[@]}"
  while read -r soname; do
    [[ -z $soname ]] && continue
    [[ -n ${asked[$soname]:-} ]] || asked[$soname]=$p
    library_owner "$soname"
    choose "$REPLY"
  done < <(needed_by_package "$p")
done

missing=0
for soname in "${!asked[@]}"; do
  library_owner "$soname"
  if [[ -z ${chosen[$REPLY]:-} && ! $REPLY =~ ^(libc6|libgcc-s1|libstdc\+\+6)$ ]]; then
    echo "fetch_debs: $soname (asked for by ${asked[$soname]}) is in $REPLY, which is not taken" >&2
    missing=1
  fi
done
((missing == 0)) || exit 1

rm -rf .debs
mkdir -p .debs
(cd .debs && apt-get download "${!chosen[@]}" >/dev/null 2>&1) ||
  { echo "fetch_debs: apt-get download failed for: ${!chosen[*]}" >&2; exit 1; }
echo "fetch_debs: ${#chosen[@]} packages, $(du -sh .debs | cut -f1) in .debs/"
