#!/usr/bin/env bash
# The peer for GPU figures, step 1 (here): llama.cpp's source (llama_source.sh,
# as for build_llama_bench.sh), trimmed to what llama-bench and llama-server
# with the CUDA backend need (ggml core, the CPU and CUDA backends, libllama,
# common, vendor, tools/llama-bench, tools/server with tools/mtmd's library
# and tools/ui's templates: the server's web UI is left out, built offline as
# an empty asset table) and packed as OUT (default
# gpu-kit/peer/llama.cpp.tar.xz, a few MiB). Step 2 runs on the GPU machine:
# bench/peer/gpu_side_by_side.sh, which also serves many users from both
# servers through scripts/gpu-kit-serve.sh (bench/README.md).
set -euo pipefail
out=$(realpath -m "${1:-gpu-kit/peer/llama.cpp.tar.xz}")
work=${ORCD_PEER_DIR:-/tmp/orcd-peer}
. "$(dirname "$0")/llama_source.sh"
fetch_llama_source "$work"
mkdir -p "$(dirname "$out")"
cd "$work"
rm -rf trimmed && mkdir -p trimmed/llama.cpp
src=llama.cpp
dst=trimmed/llama.cpp
cp -r "$src"/{CMakeLists.txt,LICENSE,cmake,include,src,common,vendor,licenses} "$dst/"
mkdir -p "$dst/ggml/src" "$dst/tools"
cp -r "$src"/ggml/{CMakeLists.txt,cmake,include} "$dst/ggml/"
find "$src/ggml/src" -maxdepth 1 -type f -exec cp {} "$dst/ggml/src/" \;
cp -r "$src"/ggml/src/{ggml-cpu,ggml-cuda} "$dst/ggml/src/"
cp -r "$src/tools/llama-bench" "$dst/tools/"
# llama-server: its sources without tests, docs or bench scripts; mtmd's
# library without its test media; ui's CMake and templates (no web sources).
mkdir -p "$dst/tools/server" "$dst/tools/mtmd" "$dst/tools/ui" "$dst/scripts"
find "$src/tools/server" -maxdepth 1 -type f ! -name '*.md' -exec cp {} "$dst/tools/server/" \;
find "$src/tools/mtmd" -maxdepth 1 -type f ! -name 'test-*' ! -name '*.md' \
  -exec cp {} "$dst/tools/mtmd/" \;
cp -r "$src"/tools/mtmd/{models,debug} "$dst/tools/mtmd/"
if [ -d "$src/tools/mtmd/legacy-models" ]; then cp -r "$src/tools/mtmd/legacy-models" "$dst/tools/mtmd/"; fi
cp "$src"/tools/ui/{CMakeLists.txt,ui.h.in,ui.cpp.in} "$dst/tools/ui/"
cp "$src/scripts/ui-assets.cmake" "$dst/scripts/"
# Only these among the tools.
printf 'add_subdirectory(%s)\n' llama-bench mtmd ui server >"$dst/tools/CMakeLists.txt"
git -C "$src" rev-parse HEAD >"$dst/COMMIT"
XZ_OPT=-T0 tar cJf "$out" -C trimmed llama.cpp
echo "peer source: $out, $(($(stat -c %s "$out") / 1024)) KiB (llama.cpp $(cut -c1-12 "$dst/COMMIT"))"
