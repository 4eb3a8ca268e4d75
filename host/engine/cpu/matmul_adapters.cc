// MATMUL (+bias, split outputs), LOGITS and EMBEDDING on the CPU: weights go
// through weight_kernels (host kernels or the type's quant plugin); rows of the
// weight are split across the pool's threads.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "host/common/status.h"
#include "host/engine/cpu/cpu_adapters.h"
#include "host/engine/cpu/weight_kernels.h"
#include "host/engine/row_lookup_checks.h"

namespace orcd::engine::cpu {
namespace {

// Rows per task: a few tasks per thread for balance, but never so few rows
// that the call overhead shows; a multiple of 16 (the quant kernels' row
// tiles: a task's last tile is then never partly idle).
int64_t RowGrain(int64_t rows, int threads) {
  const int64_t target = (rows + threads * 4 - 1) / (threads * 4);
  return target < 16 ? 16 : (target + 15) / 16 * 16;
}

// Output i of a split matmul holds rows [begin, begin + width) of the weight.
struct Segment {
  float* y;
  int64_t begin;
  int64_t width;
};

void MatmulSegments(const WeightRef& w, const float* bias, const float* x, int64_t n_tokens,
                    const Segment* segments, size_t n_segments, ExecContext& ctx, TokenKind kind) {
  const int64_t m = w.rows();
  ParallelRange(ctx, m, RowGrain(m, ctx.pool->size()), [&](int64_t r0, int64_t r1, int) {
    for (size_t s = 0; s < n_segments; ++s) {
      const Segment& seg = segments[s];
      const int64_t a = r0 > seg.begin ? r0 : seg.begin;
      const int64_t b = r1 < seg.begin + seg.width ? r1 : seg.begin + seg.width;
      if (a >= b) continue;
      float* y = seg.y + (a - seg.begin);
      MatmulRows(w, a, b - a, x, n_tokens, y, seg.width, ctx.q8_activations, kind);
      if (bias == nullptr) continue;
      for (int64_t t = 0; t < n_tokens; ++t) {
        float* yt = y + t * seg.width;
        for (int64_t r = a; r < b; ++r) yt[r - a] += bias[r];
      }
    }
  });
}

}  // namespace

void RunMatmul(const BoundInstruction& insn, ExecContext& ctx) {
  const WeightRef& w = *insn.weights[0];
  const float* bias =
      insn.weights.size() == 2 ? reinterpret_cast<const float*>(insn.weights[1]->data) : nullptr;
  const float* x = ctx.In(insn, 0);
  ForEachKindRun(ctx, [&](int64_t t0, int64_t t1, bool generated) {
    Segment segments[ORCD_OP_MAX_OUTPUTS];
    int64_t begin = 0;
    for (size_t i = 0; i < insn.out.size(); ++i) {
      const int64_t width = insn.out[i].width;
      segments[i] = {ctx.Out(insn, i) + t0 * width, begin, width};
      begin += width;
    }
    MatmulSegments(w, bias, x + t0 * w.cols(), t1 - t0, segments, insn.out.size(), ctx,
                   generated ? TokenKind::kGenerated : TokenKind::kPrompt);
  });
}

void RunLogits(const BoundInstruction& insn, ExecContext& ctx) {
  const WeightRef& w = *insn.weights[0];
  const int64_t cols = w.cols();
  const float* x = ctx.In(insn, 0) + ctx.first_logit_row * cols;
  if (ctx.logit_row_list != nullptr) {  // a step's sampling rows, gathered
    thread_local std::vector<float> rows;
    rows.resize(static_cast<size_t>(ctx.logit_rows * cols));
    for (int64_t i = 0; i < ctx.logit_rows; ++i) {
      const float* from = ctx.In(insn, 0) + ctx.logit_row_list[i] * cols;
      std::copy(from, from + cols, rows.begin() + i * cols);
    }
    x = rows.data();
  }
  // Every logits row with the generated tokens' arithmetic: a sequence's
  // logits do not depend on whether its row ended a prompt or a decode step.
  const Segment all = {ctx.logits, 0, w.rows()};
  MatmulSegments(w, nullptr, x, ctx.logit_rows, &all, 1, ctx, TokenKind::kGenerated);
  const float softcap = insn.ParamsAs<orcd_op_logits_params>().softcap;
  if (softcap > 0.0f) {
    float* y = ctx.logits;
    for (int64_t i = 0; i < ctx.logit_rows * w.rows(); ++i)
      y[i] = softcap * std::tanh(y[i] / softcap);
  }
}

void RunEmbedding(const BoundInstruction& insn, ExecContext& ctx) {
  const WeightRef& w = *insn.weights[0];
  CheckTokenIds(w, ctx.tokens, ctx.n_tokens);
  float* y = ctx.Out(insn, 0);
  GetRows(w, ctx.tokens, ctx.n_tokens, y);
  if (!insn.params.empty()) {
    const float scale = insn.ParamsAs<orcd_op_embedding_params>().scale;
    for (int64_t i = 0; i < ctx.n_tokens * w.cols(); ++i) y[i] *= scale;
  }
}

}  // namespace orcd::engine::cpu
