// GELU on the CPU: ggml's tanh approximation (orcd::GeluTanh, shared with
// the CUDA kernels and the gated GEGLU).
#include "host/engine/cpu/cpu_adapters.h"
#include "orcd/cpp/gated_activation.h"

namespace orcd::engine::cpu {

void RunGelu(const BoundInstruction& insn, ExecContext& ctx) {
  const int64_t width = insn.out[0].width;
  const float* x = ctx.In(insn, 0);
  float* y = ctx.Out(insn, 0);
  const int64_t grain = width > 0 ? (int64_t{1} << 15) / width + 1 : 1;
  ParallelRange(ctx, ctx.n_tokens, grain, [&](int64_t t0, int64_t t1, int) {
    for (int64_t i = t0 * width; i < t1 * width; ++i) y[i] = GeluTanh(x[i]);
  });
}

}  // namespace orcd::engine::cpu
