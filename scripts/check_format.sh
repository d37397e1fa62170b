#!/usr/bin/env bash
# Checks the C++ sources against .clang-format with Debian's clang-format 14; lists what differs.
#
# scripts/check_format.sh --fix rewrites them instead.
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
shopt -s nullglob
files=(src/kernels/*.cc src/kernels/*.h src/kernels/*/*.cc src/kernels/*/*.h
       src/kernels/include/gridsample/*.h src/bindings/*.cc src/bindings/*.h
       tests/native/*.cc tests/native/*.h tests/native/*/*.cc tests/native/*/*.h tests/fuzz/*.cc tests/fuzz/*.h tests/consumer/*.cc
       bench/native/*.cc bench/native/*.h)

if [ "${1:-}" = --fix ]; then
  "$CLANG_FORMAT" -i "${files[@]}"
  exit 0
fi
if "$CLANG_FORMAT" --dry-run --Werror "${files[@]}"; then
  echo "check_format: ${#files[@]} files formatted as .clang-format says"
else
  echo "check_format: run scripts/check_format.sh --fix (clang-format $("$CLANG_FORMAT" --version | grep -o '[0-9][0-9.]*' | head -1))" >&2
  exit 1
fi
