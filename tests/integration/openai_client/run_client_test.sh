#!/usr/bin/env bash
# Starts orcd-host on a free loopback port with a fixture model and runs the
# openai and @anthropic-ai/sdk npm clients against it, and structured output
# through openai's zod helper and the Vercel AI SDK's generateObject.
# Args: BIN_DIR PLUGIN_DIR FIXTURES_DIR
set -euo pipefail
bin_dir=$1 plugin_dir=$2 fixtures=$3
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/node_modules/openai" ] || [ ! -d "$here/node_modules/@anthropic-ai/sdk" ] ||
  [ ! -d "$here/node_modules/ai" ] || [ ! -d "$here/node_modules/zod" ] ||
  [ ! -d "$here/node_modules/@ai-sdk/openai-compatible" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --silent)
fi
log=$(mktemp)
"$bin_dir/orcd-host" --model "$fixtures/models/qwen2-tiny.F16.gguf" --device cpu \
  --plugin-dir "$plugin_dir" --port 0 >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -f "$log"' EXIT
port=""
for _ in $(seq 1 300); do
  port=$(grep -o '"event":"ready".*"port":"[0-9]*"' "$log" | grep -o '"port":"[0-9]*"' | grep -o '[0-9]*' || true)
  [ -n "$port" ] && break
  kill -0 $pid 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { echo "orcd-host did not become ready"; cat "$log"; exit 1; }
ORCD_BASE_URL="http://127.0.0.1:$port" node "$here/client_test.mjs"
ORCD_BASE_URL="http://127.0.0.1:$port" node "$here/anthropic_client_test.mjs"
ORCD_BASE_URL="http://127.0.0.1:$port" node "$here/structured_output_test.mjs"
