// GELU on the CPU: ggml's f16-table form (orcd::GeluTanh), read from a table
// of its 64K f16 inputs as ggml does (a tanh per element would cost prefill
// ~10 % on Gemma's GEGLU); the CUDA kernels compute the same bits directly.
#include <cstdint>

#include "host/engine/cpu/cpu_adapters.h"
#include "orcd/cpp/gated_activation.h"
#include "orcd/cpp/half.h"

namespace orcd::engine::cpu {

const GeluTable& GetGeluTable() {
  static const GeluTable table = [] {
    GeluTable t{};
    for (uint32_t i = 0; i < t.size(); ++i) {
      t[i] = GeluTanh(fp16_to_f32(static_cast<uint16_t>(i)));
    }
    return t;
  }();
  return table;
}

void RunGelu(const BoundInstruction& insn, ExecContext& ctx) {
  const GeluTable& table = GetGeluTable();
  const int64_t width = insn.out[0].width;
  const float* x = ctx.In(insn, 0);
  float* y = ctx.Out(insn, 0);
  const int64_t grain = width > 0 ? (int64_t{1} << 15) / width + 1 : 1;
  ParallelRange(ctx, ctx.n_tokens, grain, [&](int64_t t0, int64_t t1, int) {
    for (int64_t i = t0 * width; i < t1 * width; ++i) y[i] = GeluLookup(table, x[i]);
  });
}

}  // namespace orcd::engine::cpu
