#!/usr/bin/env bash
# The GPU check kit, step 2: runs on the GPU machine as DIR/run.sh OUT (made
# by scripts/gpu-bundle.sh). Writes logs and JSON into OUT; finishes inside 8
# minutes. Exit status 0 only when every step passed.
set -uo pipefail
kit=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUT}
mkdir -p "$out"
# The kit's libraries first; cuBLAS from the machine's CUDA install.
cuda_lib=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")/../lib64
export LD_LIBRARY_PATH="$kit/lib:$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ORCD_FIXTURES_DIR="$kit/fixtures" ORCD_PLUGIN_DIR="$kit/plugins"
failed=()
step() {  # step NAME SECONDS COMMAND...: OUT/NAME.log, recorded as failed on non-zero
  local name=$1 limit=$2
  shift 2
  echo "== $name"
  if ! timeout "$limit" "$@" >"$out/$name.log" 2>&1; then
    failed+=("$name")
    tail -20 "$out/$name.log"
  fi
}

# A profile step: its log is kept, but a failure (e.g. no permission for the
# GPU's performance counters) does not fail the kit.
optional_step() {  # optional_step NAME SECONDS COMMAND...
  local name=$1 limit=$2
  shift 2
  echo "== $name (optional)"
  timeout "$limit" "$@" >"$out/$name.log" 2>&1 || echo "$name: exit $? (see $name.log)"
}

cp "$kit/COMMIT" "$out/" 2>/dev/null
nvidia-smi >"$out/nvidia-smi.txt" 2>&1

# 1. GPU tests: quant kernels and plugins, the backend against the goldens.
step quant_cuda_test 120 "$kit/tests/quant_cuda_test" --gtest_output=json:"$out/quant_cuda_test.json"
step cuda_backend_gpu_test 180 "$kit/tests/orcd_cuda_backend_gpu_test" \
  --gtest_output=json:"$out/cuda_backend_gpu_test.json"

# 2. compute-sanitizer on a prefill and one decode step.
run_one=("$kit/bin/orcd-run" --model "$kit/fixtures/models/gptoss-tiny.MXFP4_MOE.gguf"
  --tokens 1,2,3,4,5 -n 1 --device cuda --plugin-dir "$kit/plugins" --ctx 64)
step memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 "${run_one[@]}"
step racecheck 120 compute-sanitizer --tool racecheck --error-exitcode 1 "${run_one[@]}"

# 3. The decode kernels alone (GB/s of weights, copies cycled beyond L2, as a
# fraction of the measured copy bandwidth): 8-bit activations (the decode
# path) and f32.
for act in q8 f32; do
  step "bench_quant_$act" 90 "$kit/bin/orcd-bench" quant --json --activations "$act" \
    --types Q4_K,Q5_0,Q6_K,Q8_0,MXFP4 --min-time 0.2
done

# 4. A short benchmark on a real-shape model synthesized here (random weights).
qwen="$out/qwen2-0.5b-shape.gguf"
if "$kit/bin/orcd-synth" --shape qwen2-0.5b --out "$qwen" \
  --vocab "$kit/fixtures/vocab/ggml-vocab-qwen2.gguf" >"$out/synth.log" 2>&1; then
  step bench_cuda 90 "$kit/bin/orcd-bench" model --model "$qwen" --device cuda --json \
    --plugin-dir "$kit/plugins" --prompt 512 --gen 128
  cp "$out/bench_cuda.log" "$out/bench_cuda.json"
  # What the decode graph, the lowering's fusions, and the 8-bit decode
  # activations with the tensor-core prefill, bring.
  step bench_cuda_unfused 90 "$kit/bin/orcd-bench" model --model "$qwen" --device cuda --json \
    --plugin-dir "$kit/plugins" --prompt 512 --gen 128 --fusion off
  step bench_cuda_eager 90 "$kit/bin/orcd-bench" model --model "$qwen" --device cuda --json \
    --plugin-dir "$kit/plugins" --prompt 512 --gen 128 --cuda-graphs off
  step bench_cuda_f32 90 "$kit/bin/orcd-bench" model --model "$qwen" --device cuda --json \
    --plugin-dir "$kit/plugins" --prompt 512 --gen 128 --activations f32 --cuda-prefill f32
  # Why a decode step takes what it takes: Nsight Compute on ~1 eager decode
  # step (past the prefill's launches, inside the warm-up), speed of light and
  # memory per kernel.
  if command -v ncu >/dev/null; then
    optional_step ncu_decode 150 ncu --csv --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --launch-skip 1500 --launch-count 300 "$kit/bin/orcd-bench" model --model "$qwen" \
      --device cuda --plugin-dir "$kit/plugins" --prompt 16 --gen 8 --repeat 1 --cuda-graphs off
  fi
  rm -f "$qwen"
else
  failed+=(synth)
fi

if [ ${#failed[@]} -eq 0 ]; then
  echo "gpu kit: all steps passed" | tee "$out/SUMMARY"
else
  echo "gpu kit: failed: ${failed[*]}" | tee "$out/SUMMARY"
  exit 1
fi
