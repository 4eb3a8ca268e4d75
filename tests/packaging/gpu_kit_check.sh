#!/usr/bin/env bash
# The GPU kit's run.sh without a GPU (scripts/gpu-kit-run.sh with its lib.sh,
# and one real orcd binary for ldd): it must fail fast with the preflight's
# verdict and still leave OUT/SUMMARY and OUT/results.tar.gz; with a GPU that
# nvidia-smi reports but no time left, every step is skipped with a line
# saying so; a step whose binary is missing fails by name, the others still
# run. A fake nvidia-smi and nvcc on PATH make each case the same on every
# machine.
#   usage: gpu_kit_check.sh SOURCE_DIR ORCD_BINARY
set -euo pipefail
src=$1
binary=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

kit="$work/kit"
mkdir -p "$kit/bin" "$work/fake/bin" "$work/fake/lib64"
cp "$src/scripts/gpu-kit-run.sh" "$kit/run.sh"
cp "$src/scripts/gpu-kit-lib.sh" "$kit/lib.sh"
cp "$binary" "$kit/bin/"
echo 2.17 >"$kit/GLIBC_NEEDED"
echo test >"$kit/COMMIT"
# cuBLAS as the kit looks for it first: next to nvcc.
printf '#!/bin/sh\nexit 0\n' >"$work/fake/bin/nvcc"
touch "$work/fake/lib64/libcublas.so.13"
chmod +x "$work/fake/bin/nvcc"

# run CASE [ARGS...]: runs the kit into $work/CASE; sets rc and took.
run() {
  local name=$1
  shift
  local t0=$SECONDS
  rc=0
  PATH="$work/fake/bin:$PATH" bash "$kit/run.sh" "$work/$name" "$@" >"$work/$name.stdout" 2>&1 ||
    rc=$?
  took=$((SECONDS - t0))
  summary=$(cat "$work/$name/SUMMARY" 2>/dev/null || true)
}
expect_out() { # the two files, the tarball holding SUMMARY and what is named
  local name=$1
  shift
  [ "$(ls "$work/$name" | tr '\n' ' ')" = "SUMMARY results.tar.gz " ] ||
    fail "$name: OUT holds $(ls "$work/$name" | tr '\n' ' '), not SUMMARY and results.tar.gz"
  local listing
  listing=$(tar tzf "$work/$name/results.tar.gz")
  for f in SUMMARY "$@"; do
    grep -qx "results/$f" <<<"$listing" || fail "$name: results.tar.gz lacks $f: $listing"
  done
}

# 1. The driver cannot be reached: the preflight's verdict, at once.
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."\nexit 9\n' \
  >"$work/fake/bin/nvidia-smi"
chmod +x "$work/fake/bin/nvidia-smi"
run no_gpu
[ "$rc" = 1 ] || fail "no_gpu: exit $rc, not 1: $(cat "$work/no_gpu.stdout")"
[ "$took" -le 20 ] || fail "no_gpu: took $took s: a kit without a GPU must fail fast"
grep -q "^preflight: FAILED: no GPU: nvidia-smi failed: NVIDIA-SMI has failed" <<<"$summary" ||
  fail "no_gpu: SUMMARY has no preflight verdict naming the driver: $summary"
[[ "$(tail -1 <<<"$summary")" == "gpu kit: failed: preflight ("* ]] ||
  fail "no_gpu: the last line is not the verdict: $summary"
expect_out no_gpu preflight.txt
grep -q "ldd orcd-run: all found" <(tar xzOf "$work/no_gpu/results.tar.gz" results/preflight.txt) ||
  fail "no_gpu: preflight.txt does not report the binary's libraries"

# 2. A GPU, but the deadline leaves no step its minimum: all skipped, saying so.
printf '#!/bin/sh\necho "NVIDIA H100 80GB HBM3, 80000 MiB, 81559 MiB, 580.65"\n' \
  >"$work/fake/bin/nvidia-smi"
run no_time --deadline 20
[ "$rc" = 3 ] || fail "no_time: exit $rc, not 3 (incomplete): $summary"
grep -q "^preflight: ok (NVIDIA H100 80GB HBM3, 80000 MiB" <<<"$summary" ||
  fail "no_time: no preflight ok line: $summary"
grep -q "^quant_cuda_test: skipped (" <<<"$summary" || fail "no_time: no skip line: $summary"
grep -q "^gpu kit: incomplete: skipped for time: .*quant_cuda_test" <<<"$summary" ||
  fail "no_time: the verdict does not say what was skipped: $summary"
expect_out no_time preflight.txt

# 3. Time enough, but the GPU tests are not in this kit: each fails by name,
# and the steps after them still run (and fail, no binaries either).
run missing --deadline 120
[ "$rc" = 1 ] || fail "missing: exit $rc, not 1: $summary"
for step in quant_cuda_test cuda_backend_gpu_test memcheck bench_quant_q8; do
  grep -q "^$step: FAILED, exit" <<<"$summary" || fail "missing: no FAILED line for $step: $summary"
done
grep -q "^gpu kit: failed: .*quant_cuda_test cuda_backend_gpu_test" <<<"$summary" ||
  fail "missing: the verdict does not name the failed steps: $summary"
expect_out missing quant_cuda_test.err cuda_backend_gpu_test.err
if tar tzf "$work/missing/results.tar.gz" | grep -q "results/bench_quant_q8.json"; then
  fail "missing: an empty JSON file was kept for a failed bench"
fi
echo "gpu kit check: passed"
