// ADD, MUL, SWIGLU, RMS_NORM and LAYER_NORM on the CPU: row-parallel for large
// batches, inline for a decode step.
#include <cmath>

#include "host/engine/cpu/cpu_adapters.h"
#include "orcd/cpp/gated_activation.h"

namespace orcd::engine::cpu {
namespace {

// Below this many elements a region is not worth waking the pool for.
constexpr int64_t kParallelElements = 1 << 15;

int64_t RowGrain(int64_t width) {
  const int64_t rows = kParallelElements / (width > 0 ? width : 1);
  return rows < 1 ? 1 : rows;
}

template <class Op>
void Binary(const BoundInstruction& insn, ExecContext& ctx, Op op) {
  const float* a = ctx.In(insn, 0);
  const float* b = ctx.In(insn, 1);
  float* y = ctx.Out(insn, 0);
  const int64_t width = insn.out[0].width;
  ParallelRange(ctx, ctx.n_tokens, RowGrain(width), [&](int64_t t0, int64_t t1, int) {
    for (int64_t i = t0 * width; i < t1 * width; ++i) y[i] = op(a[i], b[i]);
  });
}

}  // namespace

void RunAdd(const BoundInstruction& insn, ExecContext& ctx) {
  Binary(insn, ctx, [](float a, float b) { return a + b; });
}

void RunMul(const BoundInstruction& insn, ExecContext& ctx) {
  Binary(insn, ctx, [](float a, float b) { return a * b; });
}

// SWIGLU and GEGLU.
void RunSwiglu(const BoundInstruction& insn, ExecContext& ctx) {
  const bool geglu = insn.opcode == ORCD_OP_GEGLU;
  const GeluTable& gelu = GetGeluTable();
  const int64_t f = insn.out[0].width;
  const bool fused = insn.in.size() == 1;  // [gate | up] in one register
  const float* gate = ctx.In(insn, 0);
  const float* up = fused ? gate + f : ctx.In(insn, 1);
  const int64_t in_stride = fused ? 2 * f : f;
  float* y = ctx.Out(insn, 0);
  ParallelRange(ctx, ctx.n_tokens, RowGrain(f), [&](int64_t t0, int64_t t1, int) {
    for (int64_t t = t0; t < t1; ++t) {
      const float* g = gate + t * in_stride;
      const float* u = up + t * in_stride;
      float* yt = y + t * f;
      if (geglu) {
        for (int64_t i = 0; i < f; ++i) yt[i] = GeluLookup(gelu, g[i]) * u[i];
      } else {
        for (int64_t i = 0; i < f; ++i) yt[i] = Silu(g[i]) * u[i];
      }
    }
  });
}

void RunRmsNorm(const BoundInstruction& insn, ExecContext& ctx) {
  const auto p = insn.ParamsAs<orcd_op_norm_params>();
  const int64_t width = insn.out[0].width;
  const int64_t group = p.group_size == 0 ? width : p.group_size;
  const float* gamma =
      insn.weights.empty() ? nullptr : reinterpret_cast<const float*>(insn.weights[0]->data);
  const float* x = ctx.In(insn, 0);
  float* y = ctx.Out(insn, 0);
  ParallelRange(ctx, ctx.n_tokens, RowGrain(width), [&](int64_t t0, int64_t t1, int) {
    for (int64_t g0 = t0 * width; g0 < t1 * width; g0 += group) {
      double sum = 0.0;  // ggml sums squares in double too
      for (int64_t i = 0; i < group; ++i) sum += static_cast<double>(x[g0 + i]) * x[g0 + i];
      const float scale = 1.0f / std::sqrt(static_cast<float>(sum / group) + p.eps);
      for (int64_t i = 0; i < group; ++i) {
        y[g0 + i] = x[g0 + i] * scale * (gamma ? gamma[i] : 1.0f);
      }
    }
  });
}

void RunLayerNorm(const BoundInstruction& insn, ExecContext& ctx) {
  const float eps = insn.ParamsAs<orcd_op_norm_params>().eps;
  const int64_t width = insn.out[0].width;
  const bool affine = insn.weights.size() == 2;
  const float* gamma = affine ? reinterpret_cast<const float*>(insn.weights[0]->data) : nullptr;
  const float* beta = affine ? reinterpret_cast<const float*>(insn.weights[1]->data) : nullptr;
  const float* x = ctx.In(insn, 0);
  float* y = ctx.Out(insn, 0);
  ParallelRange(ctx, ctx.n_tokens, RowGrain(width), [&](int64_t t0, int64_t t1, int) {
    for (int64_t t = t0; t < t1; ++t) {
      const float* xt = x + t * width;
      float* yt = y + t * width;
      double sum = 0.0;
      for (int64_t i = 0; i < width; ++i) sum += xt[i];
      const float mean = static_cast<float>(sum / width);
      double var = 0.0;
      for (int64_t i = 0; i < width; ++i) var += static_cast<double>(xt[i] - mean) * (xt[i] - mean);
      const float scale = 1.0f / std::sqrt(static_cast<float>(var / width) + eps);
      for (int64_t i = 0; i < width; ++i) {
        const float v = (xt[i] - mean) * scale;
        yt[i] = affine ? v * gamma[i] + beta[i] : v;
      }
    }
  });
}

}  // namespace orcd::engine::cpu
