#!/bin/bash
# A third party's architecture plugin against an installed orcd, as a plugin
# author would do it: build sdk/examples/smollm3 against the INSTALLED SDK only,
# drop it into a plugins.d, see `orcd-host --list-plugins` report it, then
# serve a smollm3 model (written by the installed orcd-synth) through it and get
# a completion. The same model without the drop-in must be refused.
#
#   tests/packaging/architecture_plugin_check.sh ROOT
#
# ROOT is a scratch root holding the orcd, orcd-plugins and orcd-sdk packages
# (dpkg -x), or `DESTDIR=ROOT cmake --install BUILD` of a build configured
# with the /usr prefix. Needs cmake, a C++ compiler, curl and python3.
# ORCD_QWEN2_VOCAB overrides the vocabulary GGUF the model copies its
# tokenizer from (default: ../shared/fixtures/vocab/ggml-vocab-qwen2.gguf).
set -euo pipefail

if [[ $# -ne 1 || ! -d $1 ]]; then
  echo "usage: $0 ROOT  (a scratch root with orcd, orcd-plugins and orcd-sdk installed)" >&2
  exit 2
fi
root=$(cd "$1" && pwd)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/orcd-arch-plugin-check.XXXXXX")
worker_pid=""
cleanup() {
  if [[ -n $worker_pid ]]; then kill "$worker_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

step() { echo "== $*"; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

host=$root/usr/bin/orcd-host
synth=$root/usr/bin/orcd-synth
packaged=$root/usr/lib/orcd/plugins
for f in "$host" "$synth" "$root/usr/include/orcd/plugin.h"; do
  [[ -e $f ]] || fail "$f is not installed under $root"
done
[[ -d $packaged ]] || fail "$packaged (the orcd-plugins package) is missing"
sdk_config=$(find "$root/usr" -name orcd-sdk-config.cmake -print -quit)
[[ -n $sdk_config ]] || fail "no orcd-sdk-config.cmake under $root/usr (the orcd-sdk package)"

# The example as the orcd-sdk package ships it; the source tree's otherwise.
example=$root/usr/share/doc/orcd-sdk/examples/smollm3
[[ -f $example/CMakeLists.txt ]] || example=$src/sdk/examples/smollm3

step "building $example against $(dirname "$sdk_config")"
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S "$example" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$work/configure.log" ||
  { cat "$work/configure.log"; fail "configuring the example failed"; }
cmake --build "$work/build" >"$work/build.log" || { cat "$work/build.log"; fail "build failed"; }
found_dir=$(sed -n 's/^orcd-sdk_DIR:PATH=//p' "$work/build/CMakeCache.txt")
[[ $found_dir == "$root"/* ]] || fail "find_package(orcd-sdk) found $found_dir, not the one in $root"
if grep -q "$src/sdk/include" "$work/build/compile_commands.json"; then
  fail "the example compiled against the source tree's headers, not the installed SDK"
fi
plugin=$work/build/orcd-plugin-smollm3.so
[[ -f $plugin ]] || fail "the build did not produce $plugin"

step "dropping it into a plugins.d"
drop_in=$work/plugins.d
install -d -m 0755 "$drop_in"
install -m 0644 "$plugin" "$drop_in/"
plugin_args=(--plugin-dir "$packaged" --plugin-dir "$drop_in")

step "orcd-host --list-plugins"
"$host" --list-plugins "${plugin_args[@]}" >"$work/list.txt" 2>"$work/list.err" ||
  { cat "$work/list.txt" "$work/list.err"; fail "--list-plugins did not exit 0"; }
cat "$work/list.txt"
grep -q "^  example-smollm3 0.1.0  ABI [0-9]*\.[0-9]*  $drop_in/orcd-plugin-smollm3.so$" "$work/list.txt" ||
  fail "--list-plugins does not list example-smollm3 from $drop_in"
grep -q "^    architectures: smollm3$" "$work/list.txt" || fail "example-smollm3 does not serve smollm3"
sed -n '/^refused:/,$p' "$work/list.txt" | grep -q "$drop_in" &&
  fail "a file of $drop_in was refused"

step "writing a smollm3 model with orcd-synth"
vocab=${ORCD_QWEN2_VOCAB:-$src/../shared/fixtures/vocab/ggml-vocab-qwen2.gguf}
vocab_args=()
if [[ -f $vocab ]]; then vocab_args=(--vocab "$vocab"); fi
model=$work/smollm3-tiny.gguf
"$synth" --shape smollm3-tiny --type q8_0 --out "$model" "${vocab_args[@]}"

step "without the drop-in, the model is refused"
set +e
"$host" --device cpu --port 0 --model "$model" --plugin-dir "$packaged" >"$work/refused.log" 2>&1
status=$?
set -e
[[ $status -eq 1 ]] || { cat "$work/refused.log"; fail "expected exit 1 without the plugin, got $status"; }
grep -q "smollm3" "$work/refused.log" || fail "the refusal does not name the smollm3 architecture"

step "serving it through the drop-in plugin"
"$host" --device cpu --threads 2 --port 0 --model "$model" "${plugin_args[@]}" \
  >"$work/worker.log" 2>&1 &
worker_pid=$!
port=""
for _ in $(seq 1 600); do
  if ! kill -0 "$worker_pid" 2>/dev/null; then cat "$work/worker.log"; fail "orcd-host exited"; fi
  if grep -q '"event":"ready"' "$work/worker.log"; then
    port=$(grep '"event":"ready"' "$work/worker.log" | sed -n 's/.*"port":"\{0,1\}\([0-9]*\).*/\1/p')
    break
  fi
  sleep 0.1
done
[[ -n $port ]] || { cat "$work/worker.log"; fail "orcd-host was not ready within 60 s"; }
curl -sS --fail -X POST "http://127.0.0.1:$port/v1/completions" -H 'Content-Type: application/json' \
  -d '{"model":"smollm3-tiny","prompt":"Once upon a time","max_tokens":8,"temperature":0}' \
  >"$work/completion.json" || fail "the completion request failed"
python3 - "$work/completion.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n = r["usage"]["completion_tokens"]
text = r["choices"][0]["text"]
print(f"completion: {n} tokens: {text!r}")
if not 1 <= n <= 8:
    sys.exit(f"FAIL: {n} completion tokens, expected 1 to 8")
PY
kill -TERM "$worker_pid"
wait "$worker_pid" || fail "orcd-host did not exit 0 on SIGTERM"
worker_pid=""
echo "PASS: the out-of-tree smollm3 plugin builds against the installed SDK, is listed and serves"
