// The CPU backend's adapters, one per host macro-op (orcd/ops.h), and the
// table that maps opcodes to them.
#ifndef ORCD_HOST_ENGINE_CPU_CPU_ADAPTERS_H_
#define ORCD_HOST_ENGINE_CPU_CPU_ADAPTERS_H_

#include <array>
#include <cstdint>

#include "host/engine/adapter_table.h"
#include "host/engine/exec_context.h"
#include "orcd/cpp/half.h"

namespace orcd::engine::cpu {

// The table: every host op the CPU backend runs. Plugin-defined opcodes may be
// added to a copy of it.
AdapterTable MakeCpuAdapterTable();

// Floats of per-thread workspace the adapters of `plan` need for a context
// of `context_length` positions.
int64_t CpuWorkspaceFloats(const BoundPlan& plan, int64_t context_length);

void RunEmbedding(const BoundInstruction& insn, ExecContext& ctx);
void RunMatmul(const BoundInstruction& insn, ExecContext& ctx);
void RunLogits(const BoundInstruction& insn, ExecContext& ctx);
void RunAdd(const BoundInstruction& insn, ExecContext& ctx);
void RunMul(const BoundInstruction& insn, ExecContext& ctx);
void RunSwiglu(const BoundInstruction& insn, ExecContext& ctx);
void RunRmsNorm(const BoundInstruction& insn, ExecContext& ctx);
void RunLayerNorm(const BoundInstruction& insn, ExecContext& ctx);
void RunRope(const BoundInstruction& insn, ExecContext& ctx);
void RunAttention(const BoundInstruction& insn, ExecContext& ctx);
void RunPositionEmbedding(const BoundInstruction& insn, ExecContext& ctx);
void RunGelu(const BoundInstruction& insn, ExecContext& ctx);
// orcd::GeluTanh (ggml's GELU) of every f16 value, built once: a lookup
// gives GeluTanh's bits without a tanh per element.
using GeluTable = std::array<float, 65536>;
const GeluTable& GetGeluTable();
inline float GeluLookup(const GeluTable& table, float x) {
  if (x <= -10.0f) return 0.0f;
  if (x >= 10.0f) return x;
  return table[f32_to_fp16(x)];
}
void RunMoe(const BoundInstruction& insn, ExecContext& ctx);

// Splits [0, n) into pieces for the pool: calls fn(begin, end, thread) with
// pieces of at least `grain` items (one piece, inline, when n is small).
// Pieces not yet started when a stop is asked for are skipped
// (ExecContext::Stopping): a cancel lands within a piece, not an instruction.
template <class Fn>
void ParallelRange(ExecContext& ctx, int64_t n, int64_t grain, Fn&& fn) {
  const int64_t threads = ctx.pool->size();
  int64_t pieces = (n + grain - 1) / grain;
  if (pieces > threads * 4) pieces = threads * 4;
  if (pieces <= 1) {
    fn(int64_t{0}, n, 0);
    return;
  }
  const int64_t step = (n + pieces - 1) / pieces;
  ctx.pool->ParallelFor((n + step - 1) / step, [&](int64_t piece, int thread) {
    if (ctx.Stopping(thread)) return;
    const int64_t begin = piece * step;
    const int64_t end = begin + step < n ? begin + step : n;
    fn(begin, end, thread);
  });
}

}  // namespace orcd::engine::cpu

#endif  // ORCD_HOST_ENGINE_CPU_CPU_ADAPTERS_H_
