#!/usr/bin/env bash
# Every fixture model the GPU test binary names is one the GPU kit carries
# (scripts/gpu-kit-fixtures.txt): a model left out would fail on the GPU as a
# missing file, in the few minutes a lent GPU gives. The binary's sources are
# read from tests/gpu/CMakeLists.txt, its test-support library's from
# tests/engine/CMakeLists.txt.
#   usage: gpu_kit_fixtures_check.sh SOURCE_DIR
set -euo pipefail
src=$1
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

sources=()
for f in $(sed -n '/orcd_add_test(orcd_cuda_backend_gpu_test/,/LIBS/p' "$src/tests/gpu/CMakeLists.txt" |
  grep -oE '[A-Za-z0-9_/{}$.]+\.cc'); do
  case "$f" in
    '${PROJECT_SOURCE_DIR}'/*) sources+=("$src/${f#'${PROJECT_SOURCE_DIR}'/}") ;;
    *) sources+=("$src/tests/gpu/$f") ;;
  esac
done
for f in $(sed -n '/add_library(orcd_engine_test_support/,/)/p' "$src/tests/engine/CMakeLists.txt" |
  grep -oE '[a-z_]+\.cc'); do
  sources+=("$src/tests/engine/$f")
done
[ ${#sources[@]} -ge 6 ] || fail "found only ${#sources[@]} GPU test sources in the CMake lists"
for f in "${sources[@]}"; do [ -f "$f" ] || fail "no source $f"; done

mapfile -t patterns < <(grep -vE '^(#|$)' "$src/scripts/gpu-kit-fixtures.txt")
carried() {
  local p
  for p in "${patterns[@]}"; do
    # shellcheck disable=SC2053  # the pattern is a glob on purpose
    [[ "$1" == $p ]] && return 0
  done
  return 1
}

models=$(grep -ohE '"[a-z0-9]+-tiny\.[A-Za-z0-9_]+"' "${sources[@]}" | tr -d '"' | sort -u)
count=$(echo "$models" | grep -c .)
[ "$count" -ge 8 ] || fail "found only $count fixture models named in the GPU test sources"
missing=()
for m in $models; do carried "models/$m.gguf" || missing+=("$m"); done
carried "real/stories260K.gguf" || missing+=("real/stories260K")
[ ${#missing[@]} -eq 0 ] ||
  fail "the GPU tests name fixtures the kit does not carry: ${missing[*]} (scripts/gpu-kit-fixtures.txt)"
echo "the GPU kit carries the $count fixture models its tests name"
