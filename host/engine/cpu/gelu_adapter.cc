// GELU on the CPU: the tanh approximation ggml uses,
// 0.5 x (1 + tanh(sqrt(2/pi) x (1 + 0.044715 x^2))), evaluated in f32 (ggml's
// CPU backend reads it from an f16 table; the difference is below the f16
// rounding the golden tolerances already allow for).
#include <cmath>

#include "host/engine/cpu/cpu_adapters.h"

namespace orcd::engine::cpu {
namespace {

inline float GeluTanh(float x) {
  constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f;
  constexpr float kCoefA = 0.044715f;
  // ggml's limits: the function is 0 or x to f32 precision beyond +-10.
  if (x <= -10.0f) return 0.0f;
  if (x >= 10.0f) return x;
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * x * (1.0f + kCoefA * x * x)));
}

}  // namespace

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
