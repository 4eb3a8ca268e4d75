#!/usr/bin/env bash
# Configures and builds orcd into ./build (CUDA when nvcc is found).
# Extra arguments go to the CMake configure step, e.g. -DORCD_CUDA=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build build -j"$(nproc)"
