#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with Clang, ASan and UBSan into
# build-fuzz (CUDA off) and runs each for a bounded time from its seed corpus
# (the shared fixtures and tests/fuzz/seeds). Fails on any crash, sanitizer
# finding, leak, uncaught exception or input slower than the per-input
# timeout; the input that did it is left in build-fuzz/artifacts/<target>/.
# Fix the product, then copy that file to tests/fuzz/regressions/<target>/:
# the normal build's fuzz_replay_<target> test replays it on every run.
#
#   scripts/fuzz-smoke.sh [SECONDS_PER_TARGET] [TARGET...]
#   ORCD_FUZZ_SECONDS=60 scripts/fuzz-smoke.sh      # the default: 60 s each
#
# Clang and its libFuzzer runtime are installed here (not by install-deps.sh):
# only this script needs them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

seconds=${1:-${ORCD_FUZZ_SECONDS:-60}}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(gguf tokenizer request http jinja)

missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build=build-fuzz
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DORCD_CUDA=OFF \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DORCD_FUZZ=ON -DORCD_SANITIZE=address,undefined >/dev/null
cmake --build "$build" -j"$(nproc)" --target $(printf 'orcd_fuzz_%s ' "${targets[@]}")

fixtures=$(sed -n 's/^ORCD_FIXTURES_DIR:PATH=//p' "$build/CMakeCache.txt")
seeds=tests/fuzz/seeds
# Per target: longest input, then the read-only seed directories. The fixture
# models are megabytes of tensor data; their first 64 KiB (libFuzzer cuts
# seeds at -max_len) hold the header, the metadata and the tensor infos.
corpus_gguf=(65536 "$seeds/gguf" "$fixtures/models" "$fixtures/vocab")
corpus_tokenizer=(4096 "$build/seeds/tokenizer")
corpus_request=(4096 "$seeds/request")
corpus_http=(4096 "$seeds/http")
corpus_jinja=(20000 "$fixtures/chat/templates")
# The tokenizer vectors as files of their own (the fixture directory also
# holds the vocabularies, which are not text to encode).
mkdir -p "$build/seeds/tokenizer"
cp "$fixtures"/vocab/*.inp "$build/seeds/tokenizer/"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
for target in "${targets[@]}"; do
  declare -n corpus="corpus_$target"
  mkdir -p "$build/corpus/$target" "$build/artifacts/$target"
  echo "== fuzz $target: ${seconds} s"
  # -timeout: an input taking 25 s is a hang (a worker must never hang on
  # input); -rss_limit_mb: a bounded parser never needs 2 GiB.
  if ! "$build/fuzz/orcd_fuzz_$target" -max_total_time="$seconds" -max_len="${corpus[0]}" \
      -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$target/" \
      "$build/corpus/$target" "${corpus[@]:1}" >"$build/fuzz-$target.log" 2>&1; then
    tail -n 60 "$build/fuzz-$target.log"
    failed+=("$target")
  fi
  grep -E '^stat::(number_of_executed_units|new_units_added)' "$build/fuzz-$target.log" || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz smoke FAILED: ${failed[*]} (inputs in $build/artifacts/)" >&2
  exit 1
fi
echo "fuzz smoke passed: ${targets[*]}"
