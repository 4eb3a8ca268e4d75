// POSITION_EMBEDDING on the CPU: the row of each token's position in a
// learned position table (gpt2's position_embd), through the same row lookup
// as EMBEDDING.
#include "host/engine/cpu/cpu_adapters.h"
#include "host/engine/cpu/weight_kernels.h"
#include "host/engine/row_lookup_checks.h"

namespace orcd::engine::cpu {

void RunPositionEmbedding(const BoundInstruction& insn, ExecContext& ctx) {
  const WeightRef& table = *insn.weights[0];
  float* out = ctx.Out(insn, 0);
  for (int64_t t = 0; t < ctx.n_tokens; ++t) {
    CheckLearnedPositions(table, ctx.Position(t), 1);
    const auto position = static_cast<int32_t>(ctx.Position(t));
    GetRows(table, &position, 1, out + t * table.cols());
  }
}

}  // namespace orcd::engine::cpu
