#!/usr/bin/env bash
# The GPU kit's many-users step (scripts/gpu-kit-serve.sh) here, on the CPU
# backend and a fixture model: it must start orcd-host, wait for it, print one
# JSON line per client count with the measured figures and no errors, and
# stop the server; and fail, saying so, when the server never comes up.
#   usage: gpu_kit_serve_check.sh SOURCE_DIR ORCD_HOST ORCD_BENCH PLUGIN_DIR MODEL
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
kit="$work/kit"
mkdir -p "$kit/bin"
ln -s "$(realpath "$2")" "$kit/bin/orcd-host"
ln -s "$(realpath "$3")" "$kit/bin/orcd-bench"
ln -s "$(realpath "$4")" "$kit/plugins"
model=$5
serve="$src/scripts/gpu-kit-serve.sh"

export DEVICE=cpu PORT=$((20000 + $$ % 10000)) REQUESTS=6 PROMPT_WORDS=8,24 OUTPUT_TOKENS=4,12
SERVE_LOG="$work/server.log" bash "$serve" "$kit" "" "$model" 4 1 4 >"$work/lines" 2>"$work/err" ||
  fail "serve.sh exited $?: $(cat "$work/err") $(cat "$work/server.log")"
[ "$(wc -l <"$work/lines")" = 3 ] ||
  fail "not one line per client count and the health line: $(cat "$work/lines")"
python3 - "$work/lines" <<'PY' || fail "lines: $(cat "$work/lines")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
for want, line in zip((1, 4), lines):
    assert line["server"] == "orcd-cpu" and line["slots"] == 4, line
    assert line["clients"] == want and line["requests"] == 6, line
    assert line["errors"] == 0, line
    assert line["output_tok_s"] > 0 and line["ttft_ms"]["p50"] > 0, line
health = lines[2]["health"]
assert health["slots_total"] == 4 and health["kv_blocks_total"] > 0, lines[2]
PY
# The server is gone once the step ends (its port is free again).
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then fail "orcd-host still listens on $PORT"; fi

# The peer half (PEER: call 2 of the kit serves the same requests from
# llama-server after orcd-host), where a llama-server binary is named.
if [ -z "${ORCD_TEST_LLAMA_SERVER:-}" ]; then
  echo "gpu kit serve check: the PEER half skipped (ORCD_TEST_LLAMA_SERVER names no llama-server)"
else
  PEER=$ORCD_TEST_LLAMA_SERVER SERVE_LOG="$work/peer.log" bash "$serve" "$kit" "" "$model" 4 1 4 \
    >"$work/peer.lines" 2>"$work/peer.err" ||
    fail "serve.sh with PEER exited $?: $(cat "$work/peer.err") $(tail -5 "$work/peer.log")"
  python3 - "$work/peer.lines" <<'PY' || fail "peer lines: $(cat "$work/peer.lines")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["server"] for l in lines] == ["orcd-cpu"] * 3 + ["llama-server"] * 2, lines
for want, line in zip((1, 4), lines[3:]):
    assert line["clients"] == want and line["requests"] == 6, line
    assert line["errors"] == 0 and line["output_tok_s"] > 0, line
PY
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then fail "llama-server still listens on $PORT"; fi
fi

# A model the server cannot load: a clear failure, not a hang.
echo "not a gguf" >"$work/bad.gguf"
t0=$SECONDS
if SERVE_LOG="$work/bad.log" bash "$serve" "$kit" "" "$work/bad.gguf" 4 1 >"$work/bad.lines" \
  2>"$work/bad.err"; then
  fail "serve.sh passed with a model that cannot load"
fi
grep -q "orcd-host did not become ready" "$work/bad.err" || fail "no reason given: $(cat "$work/bad.err")"
[ $((SECONDS - t0)) -le 30 ] || fail "took $((SECONDS - t0)) s to notice the server had died"
echo "gpu kit serve check: passed"
