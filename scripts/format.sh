#!/usr/bin/env bash
# Formats every tracked C, C++ and CUDA source with the committed .clang-format.
# --check: change nothing, list the files that are not formatted, exit 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.cc' '*.h' '*.cu' '*.cuh')
if [ "${1:-}" = "--check" ]; then
  bad=$(clang-format --dry-run "${files[@]}" 2>&1 | grep -o '^[^:]*:[0-9]*:[0-9]*: warning' | cut -d: -f1 | sort -u || true)
  if [ -n "$bad" ]; then
    echo "not formatted (run scripts/format.sh):"
    echo "$bad"
    exit 1
  fi
  exit 0
fi
clang-format -i "${files[@]}"
