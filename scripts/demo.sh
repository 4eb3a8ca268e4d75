#!/usr/bin/env bash
# Installs what is missing, builds, and serves a model on the CPU backend at
# http://127.0.0.1:8080. Stop it with Ctrl-C (graceful shutdown).
#
#   scripts/demo.sh [--random] [CMAKE_ARGS...]
#
# By default it serves models/stories260K.gguf, a real trained model shipped
# in the repository (TinyStories, MIT; models/README.md): its text is a small
# child's story. --random serves instead a random-weight Qwen2-shaped model
# written by orcd-synth (its text is meaningless; it exercises the Qwen2
# byte-level BPE tokenizer and chat template). Other arguments go to the CMake
# configure step, e.g. -DORCD_CUDA=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."

STORIES=models/stories260K.gguf
STORIES_SHA256=270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d

random=0
cmake_args=()
for arg in "$@"; do
  case "$arg" in
    --random) random=1 ;;
    -h | --help)
      sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) cmake_args+=("$arg") ;;
  esac
done

scripts/build.sh "${cmake_args[@]}"

if [ "$random" = 1 ]; then
  model=build/demo/demo-qwen2.gguf
  mkdir -p build/demo
  if [ ! -f "$model" ]; then
    build/bin/orcd-synth --shape demo --out "$model"
  fi
  what="random-weight Qwen2 demo model: its text is meaningless"
  prompt="Hello, orcd"
else
  model=$STORIES
  # A truncated or replaced file (e.g. a Git LFS pointer) would load as
  # something else or not at all; say so plainly instead.
  if ! echo "$STORIES_SHA256  $model" | sha256sum --check --status; then
    echo "demo: $model is not the expected stories260K.gguf (sha256 differs; see models/README.md)" >&2
    exit 1
  fi
  what="stories260K, a tiny model trained on children's stories"
  prompt="Once upon a time"
fi

cat <<TXT
orcd demo worker starting on http://127.0.0.1:8080 (CPU backend, $what).
Try, from another terminal:
  curl -s http://127.0.0.1:8080/v1/completions -H 'Content-Type: application/json' \\
       -d '{"prompt":"$prompt","max_tokens":40,"temperature":0}'
  curl -N -X POST http://127.0.0.1:8080/execute -H 'Content-Type: application/json' \\
       -d '{"job_id":"demo-1","prompt":"$prompt","max_tokens":40,"temperature":0}'
  curl http://127.0.0.1:8080/health
TXT
exec build/bin/orcd-host --config conf/demo.yaml --model "$model"
