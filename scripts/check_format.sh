#!/usr/bin/env bash
# Fails, naming the files, when a tracked C++ file differs from what clang-format 14 makes of it
# under .clang-format. Pinned to 14 (Debian 12's) because other versions format differently.
# Fix with: git ls-files '*.cpp' '*.h' | xargs clang-format-14 -i
set -euo pipefail
cd "$(dirname "$0")/.."
unformatted=()
while IFS= read -r file; do
  clang-format-14 --dry-run --Werror "$file" >/dev/null 2>&1 || unformatted+=("$file")
done < <(git ls-files '*.cpp' '*.h')
if [ ${#unformatted[@]} -gt 0 ]; then
  echo "check_format: ${#unformatted[@]} file(s) not formatted by clang-format-14:" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  echo "fix with: git ls-files '*.cpp' '*.h' | xargs clang-format-14 -i" >&2
  exit 1
fi
echo "check_format: $(git ls-files '*.cpp' '*.h' | wc -l) files formatted"
