#!/usr/bin/env bash
# The peer for GPU figures, step 2 (on the GPU machine, from the GPU kit):
# builds llama-bench with CUDA for sm_90 only from the kit's trimmed llama.cpp
# source (pack_llama_cuda.sh), synthesizes the three target shapes with the
# kit's orcd-synth, and measures orcd-bench and llama-bench on the same files,
# interleaved (orcd, peer, orcd, peer), in this one call; then, on the first
# shape, orcd-host and llama-server serving 1, 8 and 32 clients (serve.sh).
#   usage: KIT/side_by_side.sh KIT OUT [--deadline SECONDS] [--peer-dir DIR] [SHAPE...]
# With --peer-dir, the peer is the one KIT/peer_build.sh builds (or built) in
# DIR, started in the background earlier in the same call: this waits for it.
# Like run.sh (the kit's lib.sh): OUT receives SUMMARY and results.tar.gz,
# rewritten after every step, under one deadline (default 540 s); the results
# hold side_by_side.jsonl (one line per run: tool, shape, round, figures) and
# every log. Shapes default to qwen2-0.5b phi3-mini gpt-oss-20b (~12 GB, last);
# any orcd-synth shape may be named (gemma-3-4b, qwen3-8b, llama-3.1-8b,
# qwen3-30b-a3b: ~17 GB, a few minutes to write).
# Measured on the H100 (2026-11-27): llama.cpp's CUDA build ~340 s on the 16
# cores, each bench 2-4 s (bench/README.md: both calls in one).
set -uo pipefail
usage="usage: side_by_side.sh KIT OUT [--deadline SECONDS] [--peer-dir DIR] [SHAPE...]"
kit_dir=$(cd "${1:?$usage}" && pwd)
out_dir=${2:?$usage}
shift 2
peer_dir=""
while [[ "${1:-}" == --* ]]; do
  case $1 in
    --deadline) KIT_DEADLINE=${2:?--deadline needs seconds} ;;
    --peer-dir) peer_dir=${2:?--peer-dir needs a directory} ;;
    *) echo "side_by_side.sh: unknown option $1" >&2 && exit 2 ;;
  esac
  shift 2
done
shapes=("$@")
[ ${#shapes[@]} -eq 0 ] && shapes=(qwen2-0.5b phi3-mini gpt-oss-20b)
# shellcheck source=scripts/gpu-kit-lib.sh
source "$kit_dir/lib.sh"
kit_begin "$kit_dir" "$out_dir"
kit_preflight || kit_end

# 1. llama-bench, CUDA, sm_90 only: built here now, or awaited from the
# background build that --peer-dir names.
if [ -n "$peer_dir" ]; then
  kit_step peer_build 420 bash -c "while [ ! -f '$peer_dir/rc' ]; do sleep 2; done; \
    tail -20 '$peer_dir/build.log'; exit \$(cat '$peer_dir/rc')"
else
  peer_dir="$scratch/peer"
  kit_step peer_build 420 "$kit/peer_build.sh" "$kit" "$peer_dir"
  tail -50 "$peer_dir/build.log" >"$results/peer_build.log" 2>/dev/null
fi
peer="$peer_dir/llama-bench"
[ -x "$peer" ] || kit_end
cp "$peer_dir/COMMIT" "$results/peer_commit.txt" 2>/dev/null

# 2. Per shape: synthesize, then orcd and the peer twice each, interleaved.
# The fixture vocabulary of a shape's family; none for Gemma, Llama 3 and
# gpt-oss (orcd-synth then writes tokenizer "none" with the shape's vocabulary
# size, which both engines load and bench on token ids alike; the kit leaves
# gpt-oss's 13 MB vocabulary out for room). The served shape (the first)
# needs its vocabulary: qwen2-0.5b or phi3-mini.
vocab_of() {
  case $1 in
    phi3-mini) echo ggml-vocab-phi-3.gguf ;;
    gemma-3-4b | llama-3.1-8b | gpt-oss-20b) ;;
    *) echo ggml-vocab-qwen2.gguf ;;
  esac
}
jsonl="$results/side_by_side.jsonl"
: >"$jsonl"
for shape in "${shapes[@]}"; do
  model="$scratch/$shape.gguf"
  vocab=$(vocab_of "$shape")
  vocab_args=()
  [ -n "$vocab" ] && vocab_args=(--vocab "$kit/fixtures/vocab/$vocab")
  kit_step "synth_$shape" 90 "${kit_env[@]}" "$kit/bin/orcd-synth" --shape "$shape" \
    --out "$model" "${vocab_args[@]}"
  [ -f "$model" ] || continue
  for round in 1 2; do
    kit_step --json "orcd_${shape}_$round" 120 "${kit_env[@]}" "$kit/bin/orcd-bench" model \
      --model "$model" --device cuda --json --plugin-dir "$kit/plugins" --prompt 512 --gen 128 \
      --repeat 3
    if [ -s "$results/orcd_${shape}_$round.json" ]; then
      printf '{"tool":"orcd","shape":"%s","round":%d,"result":%s}\n' "$shape" "$round" \
        "$(cat "$results/orcd_${shape}_$round.json")" >>"$jsonl"
    fi
    kit_step --jsonl "peer_${shape}_$round" 120 "$peer" -m "$model" -ngl 99 -p 512 -n 128 -r 3 \
      -o jsonl
    if [ -s "$results/peer_${shape}_$round.jsonl" ]; then
      while read -r line; do
        printf '{"tool":"llama-bench","shape":"%s","round":%d,"result":%s}\n' "$shape" \
          "$round" "$line" >>"$jsonl"
      done <"$results/peer_${shape}_$round.jsonl"
    fi
    kit_pack
  done
  # Many users on the first shape (Qwen2.5-0.5B's): orcd-host with 32 slots,
  # then llama-server with 32 (-np 32, unified KV), each at 1, 8 and 32
  # clients of the same requests (serve.sh with PEER).
  if [ "$shape" = "${shapes[0]}" ] && [ -x "$peer_dir/llama-server" ]; then
    kit_step --jsonl "serve_$shape" 200 env "PEER=$peer_dir/llama-server" bash "$kit/serve.sh" \
      "$kit" "$kit_lib_path" "$model" 32 1 8 32
  fi
  rm -f "$model"
done
kit_note "side by side: $(wc -l <"$jsonl") runs in side_by_side.jsonl"
kit_end
