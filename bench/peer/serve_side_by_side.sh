#!/usr/bin/env bash
# Many users, orcd-host against llama-server on the same GGUF in the same run,
# interleaved (orcd, peer, orcd, peer, ...), each measured by the same
# `orcd-bench serve` through the OpenAI streaming API. One JSON line per
# measurement on stdout: {"server", "round", ...orcd-bench serve's figures}.
#
# Usage: serve_side_by_side.sh MODEL.gguf ORCD_BUILD_DIR LLAMA_SERVER [ROUNDS] [CLIENTS...]
#   CLIENTS default "1 8"; each server runs with 8 slots (llama-server: -np 8,
#   one unified KV, continuous batching), context 1024 per sequence, 2 threads.
#   Environment: REQUESTS (per measurement, default 32), PROMPT_WORDS (16,128),
#   OUTPUT_TOKENS (32,96), THREADS (2), SHARED_PREFIX_WORDS (0: every prompt
#   starts with that many shared words, the prefix caches' scenario), TURNS (1:
#   each request a conversation of that many turns, the history resent),
#   THINK_MS (0: the pause a client takes between a conversation's turns), FIRST_ROUND
#   (1: rounds FIRST_ROUND..ROUNDS run, each with its own seeds, so that more
#   rounds can be added to earlier ones).
set -euo pipefail
model=$1
build=$2
llama_server=$3
rounds=${4:-2}
shift $(($# < 4 ? $# : 4))
clients=("$@")
[ ${#clients[@]} -gt 0 ] || clients=(1 8)
requests=${REQUESTS:-32}
prompt_words=${PROMPT_WORDS:-16,128}
output_tokens=${OUTPUT_TOKENS:-32,96}
threads=${THREADS:-2}
shared_prefix_words=${SHARED_PREFIX_WORDS:-0}
turns=${TURNS:-1}
think_ms=${THINK_MS:-0}
slots=8
ctx=1024
port=18181
scratch=$(mktemp -d)
trap 'kill $server_pid 2>/dev/null || true; rm -rf "$scratch"' EXIT
server_pid=
# On CPUs with AMX, ggml's AMX matmul (which weight repacking selects) crashes at this
# llama.cpp pin (SIGSEGV in ggml_backend_amx_mul_mat); there the peer runs without
# repacking (-nr), which also leaves out its repacked AVX kernels.
peer_extra=()
if grep -q amx_int8 /proc/cpuinfo; then peer_extra=(-nr); fi

wait_up() {  # until the server says it is ready ($1: its path), at most 120 s
  for _ in $(seq 600); do
    if curl -sf "http://127.0.0.1:$port$1" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "server did not come up" >&2
  return 1
}

start() {
  if [ "$1" = orcd ]; then
    printf 'worker_id: serve-bench\nlimits:\n  context_length: %s\n  max_output_tokens: 512\n' \
      "$ctx" >"$scratch/worker.yaml"
    printf 'server:\n  port: %s\n  slots: %s\n  queue_depth: 32\n' "$port" "$slots" \
      >>"$scratch/worker.yaml"
    "$build/bin/orcd-host" --config "$scratch/worker.yaml" --model "$model" --device cpu \
      --threads "$threads" --plugin-dir "$build/lib/orcd/plugins" --log-level warn \
      2>"$scratch/orcd.log" &
    server_pid=$!
    wait_up /health/ready
  else
    "$llama_server" -m "$model" --port "$port" -np "$slots" -c $((ctx * slots)) --kv-unified \
      -t "$threads" "${peer_extra[@]}" --log-disable 2>"$scratch/peer.log" >/dev/null &
    server_pid=$!
    wait_up /health  # 503 while loading
  fi
}

for round in $(seq "${FIRST_ROUND:-1}" "$rounds"); do
  for server in orcd llama-server; do
    start "$server"
    for c in "${clients[@]}"; do
      # A seed of its own per measurement: no prompt is ever sent twice to a server, so
      # neither is helped by its prompt cache unless SHARED_PREFIX_WORDS gives every
      # prompt the same beginning; both servers get the same requests.
      line=$("$build/bin/orcd-bench" serve --url "http://127.0.0.1:$port" --clients "$c" \
        --seed $((round * 1000 + c)) \
        --requests "$requests" --warmup 1 --prompt-words "$prompt_words" \
        --output-tokens "$output_tokens" --shared-prefix-words "$shared_prefix_words" \
        --turns "$turns" --think-ms "$think_ms" \
        --pid "$server_pid" --json || true)  # errors: in the line
      echo "{\"server\":\"$server\",\"round\":$round,${line#\{}"
    done
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
  done
done
