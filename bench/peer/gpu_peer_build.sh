#!/usr/bin/env bash
# The peer for GPU figures, built on the GPU machine: llama-bench and
# llama-server (its web UI left out) with CUDA for sm_90 only, from the kit's
# trimmed llama.cpp source (pack_llama_cuda.sh), static (nothing to carry
# back). Writes DIR/llama-bench, DIR/llama-server, DIR/build.log and,
# last, DIR/rc (the build's exit status), which side_by_side.sh --peer-dir
# waits for: started in the background at the top of a device call, the
# build (CPU-bound, minutes on 16 cores) overlaps run.sh's GPU steps.
#   usage: KIT/peer_build.sh KIT DIR
set -uo pipefail
kit=$(cd "${1:?usage: peer_build.sh KIT DIR}" && pwd)
dir=${2:?usage: peer_build.sh KIT DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -f "$dir/rc" "$dir/llama-bench" "$dir/llama-server"
src="$dir/src"
rc=0
{
  rm -rf "$src" && mkdir -p "$src" && tar xJf "$kit/peer/llama.cpp.tar.xz" -C "$src" &&
    cmake -S "$src/llama.cpp" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DGGML_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
      -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_UI=OFF \
      -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_APP=OFF -DBUILD_SHARED_LIBS=OFF &&
    cmake --build "$src/build" --target llama-bench llama-server -j"$(nproc)" &&
    cp "$src/build/bin/llama-bench" "$src/build/bin/llama-server" "$dir/" &&
    cp "$src/llama.cpp/COMMIT" "$dir/COMMIT"
} >"$dir/build.log" 2>&1 || rc=$?
echo "$rc" >"$dir/rc"
exit "$rc"
