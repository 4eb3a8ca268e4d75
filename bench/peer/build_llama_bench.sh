#!/usr/bin/env bash
# Builds llama.cpp's llama-bench (CPU only, this machine's ISA) for same-run
# peer figures in bench/RESULTS.md, or another of its tools: llama-server for
# the many-users peer (bench/peer/serve_side_by_side.sh). The source comes
# from the git bundle the node-llama-cpp npm package ships (the npm registry is
# reachable here, GitHub is not). Prints the path of the binary.
# Usage: build_llama_bench.sh [DIR] [TARGET (llama-bench | llama-server)]
set -euo pipefail
dir=${1:-/tmp/orcd-peer}
target=${2:-llama-bench}
. "$(dirname "$0")/llama_source.sh"
fetch_llama_source "$dir"
cd "$dir"
cmake -S llama.cpp -B llama.cpp/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
  -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON \
  -DBUILD_SHARED_LIBS=OFF >&2
cmake --build llama.cpp/build --target "$target" -j"$(nproc)" >&2
echo "$dir/llama.cpp/build/bin/$target"
