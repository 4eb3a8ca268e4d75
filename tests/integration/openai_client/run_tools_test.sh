#!/usr/bin/env bash
# Tool calls and reasoning through the real orcd-host with the unmodified
# openai npm client (chat completions and the Responses API) and the Vercel
# AI SDK's tool loop. For two chat formats (Qwen2.5's Hermes tool calls on the
# Qwen2 vocabulary, gpt-oss's harmony on its vocabulary) it writes a model
# whose output is scripted in its weights (orcd-test-scripted-model), renders
# each conversation with orcd-tokenize --render-chat and tokenizes it, and
# places each script right after that many prompt tokens: the scripted reply
# comes back only if the server's prompt has exactly the tokens
# orcd-tokenize counts (tools_test.mjs also compares usage.prompt_tokens).
# Args: BIN_DIR PLUGIN_DIR FIXTURES_DIR SCRIPTED_MODEL_TOOL
set -euo pipefail
bin_dir=$1 plugin_dir=$2 fixtures=$3 scripted_tool=$4
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/node_modules/openai" ] || [ ! -d "$here/node_modules/@anthropic-ai/sdk" ] ||
  [ ! -d "$here/node_modules/ai" ] || [ ! -d "$here/node_modules/zod" ] ||
  [ ! -d "$here/node_modules/@ai-sdk/openai-compatible" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --silent)
fi
work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# write_case NAME [KWARGS_JSON] -> $work/NAME.json in the shape of cases.json's cases
write_case() {
  local kwargs=${2:-}
  [ -n "$kwargs" ] || kwargs='{}'
  node -e '
    const fs = require("fs");
    const cases = JSON.parse(fs.readFileSync(process.argv[1] + "/chat/cases.json", "utf8")).cases;
    const c = cases.find((x) => x.name === process.argv[2]);
    c.kwargs = JSON.parse(process.argv[3]);
    fs.writeFileSync(process.argv[4], JSON.stringify(c));
  ' "$fixtures" "$1" "$kwargs" "$work/$1.json"
}

# prompt_tokens MODEL CASE_FILE -> number of tokens of the rendered prompt
prompt_tokens() {
  "$bin_dir/orcd-tokenize" --model "$1" --conversation "$2" --render-chat >"$work/prompt.txt"
  "$bin_dir/orcd-tokenize" --model "$1" --text-file "$work/prompt.txt" --no-special --parse-special |
    node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).length));'
}

script_tokens() {  # MODEL FILE -> tokens of a script
  "$bin_dir/orcd-tokenize" --model "$1" --text-file "$2" --no-special --parse-special |
    node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).length));'
}

servers=0
serve() {  # MODEL -> sets port, pid and log
  # A log of its own per server: with one reused file, the port could be
  # read from the previous server's lines before the new process had
  # truncated it (the redirect happens in the background child), and the
  # client met a closed port (ECONNREFUSED) under load.
  servers=$((servers + 1))
  log="$work/server.$servers.log"
  "$bin_dir/orcd-host" --model "$1" --device cpu --plugin-dir "$plugin_dir" --port 0 >"$log" 2>&1 &
  pid=$!
  port=""
  for _ in $(seq 1 300); do
    port=$(grep -o '"event":"ready".*"port":"[0-9]*"' "$log" | grep -o '"port":"[0-9]*"' | grep -o '[0-9]*' || true)
    [ -n "$port" ] && return 0
    kill -0 $pid 2>/dev/null || { cat "$log"; exit 1; }
    sleep 0.1
  done
  echo "orcd-host did not become ready"; cat "$log"; exit 1
}

stop_server() {
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=""
}

run_family() {  # FAMILY VOCAB TEMPLATE KWARGS_A
  local family=$1 vocab=$2 template=$3 kwargs_a=$4
  write_case tools_system_user "$kwargs_a"
  write_case tools_call
  # Any script start will do to render and count: the tokenizer and the
  # template do not depend on the weights.
  "$scripted_tool" --vocab "$vocab" --template "$template" --out "$work/probe.gguf" \
    --script "1:$here/scripts/$family.call.txt"
  local p_a p_b
  p_a=$(prompt_tokens "$work/probe.gguf" "$work/tools_system_user.json")
  p_b=$(prompt_tokens "$work/probe.gguf" "$work/tools_call.json")
  if [ "$family" = hermes ]; then
    # The conversation with a tool call and its reply renders as jinja2 does.
    cmp "$work/prompt.txt" "$fixtures/chat/expected/qwen2.5-7b-instruct.tools_call.txt"
  fi
  local n_call n_answer
  n_call=$(script_tokens "$work/probe.gguf" "$here/scripts/$family.call.txt")
  n_answer=$(script_tokens "$work/probe.gguf" "$here/scripts/$family.answer.txt")
  # The Vercel AI SDK's second step: the first conversation, the call as the
  # SDK sends it back and the tool's result (aisdk_tools_test.mjs). The SDK
  # sends the arguments as a compact JSON string; the server hands templates
  # that print arguments as objects the parsed object (as transformers
  # does), so the case carries the object. The result grows by words until
  # its scripted answer does not overlap the other scripts' positions.
  local tool_result p_c report=""
  for _ in $(seq 1 60); do
    tool_result="{\"temperature\":22,\"unit\":\"celsius\",\"condition\":\"sunny\",\"report\":\"$report\"}"
    node -e '
      const fs = require("fs");
      const c = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
      c.messages.push(
        { role: "assistant", content: "", tool_calls: [{ id: "call_sdk", type: "function",
          function: { name: "get_current_weather",
                      arguments: { location: "Tokyo, Japan", unit: "celsius" } } }] },
        { role: "tool", tool_call_id: "call_sdk", content: process.argv[2] });
      fs.writeFileSync(process.argv[3], JSON.stringify(c));
    ' "$work/tools_system_user.json" "$tool_result" "$work/aisdk.json"
    p_c=$(prompt_tokens "$work/probe.gguf" "$work/aisdk.json")
    if [ $((p_c + n_answer)) -le "$p_b" ] || [ "$p_c" -ge $((p_b + n_answer)) ]; then
      [ "$p_c" -ge $((p_a + n_call)) ] && break
    fi
    # Each " clear" is one more token: step past the answer script at once.
    for _ in $(seq 1 $((p_b + n_answer - p_c > 1 ? p_b + n_answer - p_c : 1))); do
      report="$report clear"
    done
  done
  "$scripted_tool" --vocab "$vocab" --template "$template" --out "$work/model.gguf" \
    --script "$p_a:$here/scripts/$family.call.txt" --script "$p_b:$here/scripts/$family.answer.txt" \
    --script "$p_c:$here/scripts/$family.answer.txt"
  serve "$work/model.gguf"
  ORCD_BASE_URL="http://127.0.0.1:$port" ORCD_FAMILY=$family ORCD_FIXTURES_DIR=$fixtures \
    ORCD_PROMPT_TOKENS_CALL=$p_a ORCD_PROMPT_TOKENS_ANSWER=$p_b \
    ORCD_SCRIPT_TOKENS_CALL=$n_call ORCD_SCRIPT_TOKENS_ANSWER=$n_answer \
    node "$here/tools_test.mjs" || { echo "server log:"; cat "$log"; exit 1; }
  ORCD_BASE_URL="http://127.0.0.1:$port" ORCD_FAMILY=$family ORCD_FIXTURES_DIR=$fixtures \
    ORCD_TOOL_RESULT=$tool_result \
    node "$here/aisdk_tools_test.mjs" || { echo "server log:"; cat "$log"; exit 1; }
  stop_server
}

run_family hermes "$fixtures/vocab/ggml-vocab-qwen2.gguf" \
  "$fixtures/chat/templates/qwen2.5-7b-instruct.jinja" '{}'
run_family harmony "$fixtures/vocab/ggml-vocab-gpt-oss.gguf" \
  "$fixtures/chat/templates/gpt-oss-120b.jinja" '{"reasoning_effort":"high"}'
