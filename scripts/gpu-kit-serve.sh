#!/usr/bin/env bash
# The GPU check kit's many-users step (travels in the kit as serve.sh; run.sh
# calls it): orcd-host serving MODEL on the GPU with SLOTS slots, then
# `orcd-bench serve` (the OpenAI streaming API, bench/README.md's request mix)
# at each client count in turn against that one server. One JSON line per
# client count on stdout, then one with the server's /health (VRAM, KV
# blocks); the server's log in $SERVE_LOG (default: stderr). With PEER (a
# llama-server binary: the kit's peer build), then the same client counts,
# seeds and requests against llama-server on the same file, in the same call
# (-ngl 99, -np SLOTS, one unified KV of SLOTS x 1024 positions, continuous
# batching): one JSON line per client count, "server": "llama-server".
#
# Usage: serve.sh KIT LIB_PATH MODEL SLOTS CLIENTS...
#   LIB_PATH is the kit's LD_LIBRARY_PATH (kit_preflight's): given to orcd's
#   binaries only, never to the machine's own tools (curl, python3).
#   Environment: REQUESTS (per client count, default 2 per client, at least
#   16), PROMPT_WORDS (16,128), OUTPUT_TOKENS (32,96), PORT (18182), DEVICE
#   (cuda; the kit's test runs it on the CPU).
set -euo pipefail
kit=$1
lib_path=$2
model=$3
slots=$4
shift 4
[ $# -gt 0 ] || {
  echo "serve.sh: no client counts" >&2
  exit 2
}
port=${PORT:-18182}
ctx=1024
scratch=$(mktemp -d "${TMPDIR:-/tmp}/orcd-serve.XXXXXX")
server_pid=
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$scratch"' EXIT
orcd() { env "LD_LIBRARY_PATH=$lib_path" "$@"; }

# GET PATH's body when it answers 200, with python3's urllib or curl,
# whichever the machine has; non-zero otherwise.
get() {
  local url="http://127.0.0.1:$port$1"
  if command -v python3 >/dev/null; then
    python3 -c "import sys, urllib.request
try:
    r = urllib.request.urlopen('$url', timeout=2)
    sys.stdout.write(r.read().decode())
    sys.exit(0 if r.status == 200 else 1)
except Exception:
    sys.exit(1)"
  else
    curl -sf "$url" 2>/dev/null
  fi
}

# Waits until GET $1 answers 200 while the server lives, at most 120 s.
wait_ready() {
  for _ in $(seq 600); do
    if get "$1" >/dev/null; then return 0; fi
    kill -0 "$server_pid" 2>/dev/null || return 1
    sleep 0.2
  done
  return 1
}

# One JSON line per client count against the running server ($1: its name).
rc=0
measure() {
  local name=$1 c requests line
  for c in "${clients[@]}"; do
    requests=${REQUESTS:-$((2 * c > 16 ? 2 * c : 16))}
    # A seed per client count: no prompt is sent twice, so the prefix cache
    # does not serve a later count's prompts; both servers get the same.
    line=$(orcd "$kit/bin/orcd-bench" serve --url "http://127.0.0.1:$port" --clients "$c" \
      --seed $((500 + c)) --requests "$requests" --warmup 1 \
      --prompt-words "${PROMPT_WORDS:-16,128}" --output-tokens "${OUTPUT_TOKENS:-32,96}" \
      --pid "$server_pid" --json) || rc=1
    [ -n "$line" ] || line="{\"clients\":$c,\"error\":\"orcd-bench serve printed nothing\"}"
    echo "{\"server\":\"$name\",\"slots\":$slots,${line#\{}"
  done
}

stop() {
  kill "$server_pid"
  wait "$server_pid" 2>/dev/null || true
  server_pid=
}
clients=("$@")

cat >"$scratch/worker.yaml" <<EOF
worker_id: gpu-kit-serve
limits:
  context_length: $ctx
  max_output_tokens: 512
server:
  port: $port
  slots: $slots
  queue_depth: 32
  max_connections: $((slots + 48))
EOF
# env execs orcd-host: $! is the server's own pid (kill, --pid's RSS).
env "LD_LIBRARY_PATH=$lib_path" "$kit/bin/orcd-host" --config "$scratch/worker.yaml" --model "$model" \
  --device "${DEVICE:-cuda}" --plugin-dir "$kit/plugins" --log-level warn 2>>"${SERVE_LOG:-/dev/stderr}" &
server_pid=$!
wait_ready /health/ready || {
  echo "serve.sh: orcd-host did not become ready" >&2
  exit 1
}
measure "orcd-${DEVICE:-cuda}"
# The server's own account after the load (slots, KV blocks, VRAM bytes on CUDA).
health=$(get /health) || health='{"error":"no /health"}'
echo "{\"server\":\"orcd-${DEVICE:-cuda}\",\"health\":$health}"
stop

if [ -n "${PEER:-}" ]; then
  "$PEER" -m "$model" --port "$port" -ngl 99 -np "$slots" -c $((ctx * slots)) --kv-unified \
    --log-disable >/dev/null 2>>"${SERVE_LOG:-/dev/stderr}" &
  server_pid=$!
  if wait_ready /health; then # 503 while it loads
    measure llama-server
    stop
  else
    echo "serve.sh: llama-server did not become ready" >&2
    rc=1
  fi
fi
exit "$rc"
