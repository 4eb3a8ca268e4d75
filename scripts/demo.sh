#!/usr/bin/env bash
# Installs what is missing, builds, writes a demo model (random weights: its
# text is meaningless) and runs the worker on it on the CPU backend at
# http://127.0.0.1:8080. Stop it with Ctrl-C (graceful shutdown).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh "$@"
mkdir -p build/demo
if [ ! -f build/demo/demo-qwen2.gguf ]; then
  build/bin/orcd-synth --shape demo --out build/demo/demo-qwen2.gguf
fi
cat <<'TXT'
orcd demo worker starting on http://127.0.0.1:8080 (CPU backend, random-weight demo model).
Try, from another terminal:
  curl -N -X POST http://127.0.0.1:8080/execute -H 'Content-Type: application/json' \
       -d '{"job_id":"demo-1","prompt":"Hello, orcd","max_tokens":16,"temperature":0}'
  curl http://127.0.0.1:8080/health
TXT
exec build/bin/orcd-host --config conf/demo.yaml
