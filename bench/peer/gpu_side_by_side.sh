#!/usr/bin/env bash
# The peer for GPU figures, step 2 (on the GPU machine, from the GPU kit):
# builds llama-bench with CUDA for sm_90 only from the kit's trimmed llama.cpp
# source (pack_llama_cuda.sh), synthesizes the three target shapes with the
# kit's orcd-synth, and measures orcd-bench and llama-bench on the same files,
# interleaved (orcd, peer, orcd, peer), in this one call.
#   usage: KIT/peer/gpu_side_by_side.sh KIT OUT [SHAPE...]
# Writes OUT/side_by_side.jsonl (one line per run: tool, shape, figures) and
# the logs; shapes default to qwen2-0.5b phi3-mini gpt-oss-20b (~12 GB, last).
# Unmeasured as written: the llama.cpp CUDA build time on the 16-core machine
# (expected several minutes), and whether everything fits one 10-minute call.
set -uo pipefail
kit=$(cd "${1:?usage: gpu_side_by_side.sh KIT OUT [SHAPE...]}" && pwd)
out=${2:?usage: gpu_side_by_side.sh KIT OUT [SHAPE...]}
shift 2
shapes=("$@")
[ ${#shapes[@]} -eq 0 ] && shapes=(qwen2-0.5b phi3-mini gpt-oss-20b)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${TMPDIR:-/tmp}/orcd-side-by-side
mkdir -p "$work"
cuda_lib=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")/../lib64
export LD_LIBRARY_PATH="$kit/lib:$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# 1. llama-bench, CUDA, sm_90 only (static: nothing to carry back).
start=$(date +%s)
tar xJf "$kit/peer/llama.cpp.tar.xz" -C "$work"
if ! { cmake -S "$work/llama.cpp" -B "$work/llama.cpp/build" -DCMAKE_BUILD_TYPE=Release \
  -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF \
  -DLLAMA_BUILD_APP=OFF -DBUILD_SHARED_LIBS=OFF &&
  cmake --build "$work/llama.cpp/build" --target llama-bench -j"$(nproc)"; } \
  >"$out/peer_build.log" 2>&1; then
  echo "peer build failed (see peer_build.log)" | tee "$out/SUMMARY"
  tail -20 "$out/peer_build.log"
  exit 1
fi
peer="$work/llama.cpp/build/bin/llama-bench"
echo "peer build: $(($(date +%s) - start)) s ($(cat "$work/llama.cpp/COMMIT"))" | tee "$out/peer_build.txt"

# 2. Per shape: synthesize, then orcd and the peer twice each, interleaved.
vocab_of() {
  case $1 in
    phi3-mini) echo ggml-vocab-phi-3.gguf ;;
    gpt-oss-20b) echo ggml-vocab-gpt-oss.gguf ;;
    *) echo ggml-vocab-qwen2.gguf ;;
  esac
}
results="$out/side_by_side.jsonl"
: >"$results"
for shape in "${shapes[@]}"; do
  model="$work/$shape.gguf"
  if ! "$kit/bin/orcd-synth" --shape "$shape" --out "$model" \
    --vocab "$kit/fixtures/vocab/$(vocab_of "$shape")" >"$out/synth_$shape.log" 2>&1; then
    echo "synth $shape failed" | tee -a "$out/SUMMARY"
    continue
  fi
  for round in 1 2; do
    if timeout 240 "$kit/bin/orcd-bench" model --model "$model" --device cuda --json \
      --plugin-dir "$kit/plugins" --prompt 512 --gen 128 --repeat 3 \
      >"$work/orcd.json" 2>"$out/orcd_${shape}_$round.err"; then
      printf '{"tool":"orcd","shape":"%s","round":%d,"result":%s}\n' "$shape" "$round" \
        "$(cat "$work/orcd.json")" >>"$results"
    fi
    if timeout 240 "$peer" -m "$model" -ngl 99 -p 512 -n 128 -r 3 -o jsonl \
      >"$work/peer.jsonl" 2>"$out/peer_${shape}_$round.err"; then
      while read -r line; do
        printf '{"tool":"llama-bench","shape":"%s","round":%d,"result":%s}\n' "$shape" \
          "$round" "$line" >>"$results"
      done <"$work/peer.jsonl"
    fi
  done
  rm -f "$model"
done
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
echo "side by side: $(wc -l <"$results") runs in $results" | tee -a "$out/SUMMARY"
