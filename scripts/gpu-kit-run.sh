#!/usr/bin/env bash
# The GPU check kit, step 2: runs on the GPU machine as DIR/run.sh OUT
# [--deadline SECONDS] (made by scripts/gpu-bundle.sh). OUT receives two
# files, rewritten after every step: SUMMARY (one line per step, the verdict
# last) and results.tar.gz (every log and JSON). Steps run in order of value
# under one deadline (default 540 s; lib.sh says how), so a call cut short
# still brings back the most valuable results. Exit status 0 only when every
# step passed.
set -uo pipefail
kit_dir=$(cd "$(dirname "$0")" && pwd)
out_dir=${1:?usage: run.sh OUT [--deadline SECONDS]}
[ "${2:-}" = --deadline ] && KIT_DEADLINE=${3:?--deadline needs seconds}
# shellcheck source=scripts/gpu-kit-lib.sh
source "$kit_dir/lib.sh"
kit_begin "$kit_dir" "$out_dir"
kit_preflight || kit_end
kit_step --optional nvidia_smi 10 nvidia-smi
# A GPU test that cannot reach the device fails (naming the driver's error)
# instead of skipping: here a skip would read as a pass.
export ORCD_REQUIRE_GPU=1
export ORCD_FIXTURES_DIR="$kit/fixtures" ORCD_PLUGIN_DIR="$kit/plugins"

# 1. GPU tests: quant kernels and plugins; the backend against every golden,
# against the CPU backend, repeats bit for bit, the VRAM check.
kit_step quant_cuda_test 90 "${kit_env[@]}" "$kit/tests/quant_cuda_test" \
  --gtest_output=json:"$results/quant_cuda_test.json"
kit_step cuda_backend_gpu_test 150 "${kit_env[@]}" "$kit/tests/orcd_cuda_backend_gpu_test" \
  --gtest_output=json:"$results/cuda_backend_gpu_test.json"

# 2. compute-sanitizer on a 24-token prompt (the tensor-core prefill path
# starts at 16) and 4 decoded tokens (an eager step, the graph's capture, its
# replays); then memcheck on steps of several sequences (block tables, split-KV
# attention over decode rows, a graph per number of rows, with an f16 and a
# q8_0 KV cache: CudaSteps; a step's rows sampled in one launch:
# CudaStepSampling; prefix-cache hits with their windows' ring copies:
# CudaPrefixCache; rows masked by a grammar's bits: CudaMaskedSampling, on
# the 260K-parameter stories model; GEMMs over padded column tiles:
# CudaMixedSteps.*ColumnTiled*).
prompt=$(seq -s, 1 24)
run_one=("$kit/bin/orcd-run" --model "$kit/fixtures/models/gptoss-tiny.MXFP4_MOE.gguf"
  --tokens "$prompt" -n 4 --device cuda --plugin-dir "$kit/plugins" --ctx 64)
for tool in memcheck racecheck; do
  kit_step "$tool" 90 compute-sanitizer --tool "$tool" --target-processes all \
    --error-exitcode 1 "${kit_env[@]}" "${run_one[@]}"
done
kit_step memcheck_steps 120 compute-sanitizer --tool memcheck --error-exitcode 1 "${kit_env[@]}" \
  "$kit/tests/orcd_cuda_backend_gpu_test" \
  --gtest_filter='Fixtures/CudaSteps.*gptoss*:CudaStepSampling.*:Fixtures/CudaPrefixCache.*gptoss*:CudaMaskedSampling.*:CudaMixedSteps.*ColumnTiled*'


# 3. A real-shape model synthesized here (random weights): prefill and decode
# first (the figure that matters), then the decode kernels alone (GB/s of
# weights, copies cycled beyond L2, as a fraction of the measured copy
# bandwidth), then what the decode graph, the lowering's fusions and the 8-bit
# decode activations with the tensor-core prefill each bring.
qwen="$scratch/qwen2-0.5b-shape.gguf"
kit_step synth 30 "${kit_env[@]}" "$kit/bin/orcd-synth" --shape qwen2-0.5b --out "$qwen" \
  --vocab "$kit/fixtures/vocab/ggml-vocab-qwen2.gguf"
model=(model --model "$qwen" --device cuda --json --plugin-dir "$kit/plugins" --prompt 512
  --gen 128)
quant=(quant --json --types Q4_K,Q5_0,Q6_K,Q8_0,MXFP4 --min-time 0.2)
[ -f "$qwen" ] && kit_step --json bench_cuda 60 "${kit_env[@]}" "$kit/bin/orcd-bench" "${model[@]}"
# Many sequences' decode steps (continuous batching's figure): 8 and 32 at once.
for n in 8 32; do
  [ -f "$qwen" ] && kit_step --json "bench_cuda_batched_$n" 60 "${kit_env[@]}" "$kit/bin/orcd-bench" \
    "${model[@]}" --sequences "$n" --repeat 1
done
# Many users through the server (continuous batching's figure end to end):
# orcd-host on the same model with 32 slots, `orcd-bench serve` at 1, 8 and 32
# clients (serve.sh: one JSON line each, then the server's /health with its
# VRAM and KV blocks).
[ -f "$qwen" ] && kit_step --jsonl serve_cuda 150 bash "$kit/serve.sh" "$kit" "$kit_lib_path" \
  "$qwen" 32 1 8 32
kit_step --json bench_quant_q8 60 "${kit_env[@]}" "$kit/bin/orcd-bench" "${quant[@]}" --activations q8
if [ -f "$qwen" ]; then
  kit_step --json bench_cuda_eager 60 "${kit_env[@]}" "$kit/bin/orcd-bench" "${model[@]}" \
    --cuda-graphs off
  kit_step --json bench_cuda_unfused 60 "${kit_env[@]}" "$kit/bin/orcd-bench" "${model[@]}" --fusion off
  kit_step --json bench_cuda_f32 60 "${kit_env[@]}" "$kit/bin/orcd-bench" "${model[@]}" \
    --activations f32 --cuda-prefill f32
  # What batch invariance by column tiles costs the 512-token prefill
  # (device.cuda_gemm_column_tile; whether cuBLAS needs it: the GPU test).
  for n in 64 256; do
    kit_step --json "bench_cuda_tiled_$n" 60 "${kit_env[@]}" "$kit/bin/orcd-bench" "${model[@]}" \
      --cuda-gemm-columns "$n"
  done
fi
kit_step --json bench_quant_f32 60 "${kit_env[@]}" "$kit/bin/orcd-bench" "${quant[@]}" --activations f32
# Why a decode step takes what it takes: Nsight Compute's time and DRAM bytes
# of each kernel of ~2 eager decode steps (past the prefill's launches, inside
# the warm-up). Whole sections (SpeedOfLight, MemoryWorkloadAnalysis) replay
# each kernel dozens of times: 300 kernels took over 120 s on the H100.
# Optional: the GPU's counters may be off limits.
if [ -f "$qwen" ] && command -v ncu >/dev/null; then
  kit_step --optional ncu_decode 90 ncu --csv --target-processes all \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum --launch-skip 1500 --launch-count 600 \
    "${kit_env[@]}" "$kit/bin/orcd-bench" model --model "$qwen" --device cuda \
    --plugin-dir "$kit/plugins" --prompt 16 --gen 8 --repeat 1 --cuda-graphs off
fi
rm -f "$qwen"
kit_end
