#!/usr/bin/env bash
# Builds the .deb packages with CUDA kernels for every supported GPU
# generation (Turing through Blackwell). Output: build-deb/*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build-deb -G Ninja -DCMAKE_BUILD_TYPE=Release -DORCD_BUILD_TESTS=OFF \
  -DCMAKE_INSTALL_PREFIX=/usr -DORCD_CUDA="${ORCD_CUDA:-AUTO}" \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-75;80;86;89;90;100;120}"
cmake --build build-deb -j"$(nproc)"
(cd build-deb && cpack)
ls -l build-deb/*.deb
