// ROPE on the CPU, ggml's rope_ext semantics: normal (adjacent pairs) and neox
// (halves) rotation of the first n_rot elements of every head, frequency
// factors, linear scaling (freq_scale) and YaRN (ext_factor, attn_factor,
// beta_fast/slow over n_ctx_orig). The per-token cos/sin table is computed
// like ggml (theta multiplied step by step in float) and shared by all heads.
#include <algorithm>
#include <cmath>

#include "host/engine/cpu/cpu_adapters.h"
#include "host/engine/op_shapes.h"
#include "host/engine/rope_yarn.h"

namespace orcd::engine::cpu {
namespace {

float RampYarn(float low, float high, int64_t i0) {
  const float y = (static_cast<float>(i0 / 2) - low) / std::max(0.001f, high - low);
  return 1.0f - std::min(1.0f, std::max(0.0f, y));
}

// cache[i0] = cos, cache[i0 + 1] = sin of pair i0/2 at position `pos`.
void FillCache(const orcd_op_rope_params& p, const YarnDims& dims, const float* freq_factors,
               float pos, float* cache) {
  const float theta_scale = RopeThetaScale(p);
  const float mscale = RopeMagnitude(p);
  float theta = pos;
  for (int64_t i0 = 0; i0 < p.n_rot; i0 += 2) {
    const float ff = freq_factors ? freq_factors[i0 / 2] : 1.0f;
    const float extrap = theta / ff;
    const float interp = p.freq_scale * extrap;
    float angle = interp;
    if (p.ext_factor != 0.0f) {
      const float mix = RampYarn(dims.low, dims.high, i0) * p.ext_factor;
      angle = interp * (1.0f - mix) + extrap * mix;
    }
    cache[i0] = std::cos(angle) * mscale;
    cache[i0 + 1] = std::sin(angle) * mscale;
    theta *= theta_scale;
  }
}

}  // namespace

void RunRope(const BoundInstruction& insn, ExecContext& ctx) {
  auto p = insn.ParamsAs<orcd_op_rope_params>();
  if (p.attn_factor == 0.0f) p.attn_factor = 1.0f;  // a zeroed field means "none"
  const YarnDims dims = YarnCorrDims(p);
  const float* freq_factors =
      insn.weights.empty() ? nullptr : reinterpret_cast<const float*>(insn.weights[0]->data);
  const int64_t width = insn.out[0].width;
  const int64_t heads = width / p.head_dim;
  const int64_t half = p.n_rot / 2;
  const bool neox = p.mode == ORCD_ROPE_NEOX;
  const float* x = ctx.In(insn, 0);
  float* y = ctx.Out(insn, 0);
  ParallelRange(ctx, ctx.n_tokens, 8, [&](int64_t t0, int64_t t1, int) {
    float cache[kMaxRopeDims];
    for (int64_t t = t0; t < t1; ++t) {
      FillCache(p, dims, freq_factors, static_cast<float>(ctx.Position(t)), cache);
      for (int64_t h = 0; h < heads; ++h) {
        const float* src = x + t * width + h * p.head_dim;
        float* dst = y + t * width + h * p.head_dim;
        for (int64_t i0 = 0; i0 < p.n_rot; i0 += 2) {
          const int64_t a = neox ? i0 / 2 : i0;
          const int64_t b = neox ? i0 / 2 + half : i0 + 1;
          const float c = cache[i0], s = cache[i0 + 1];
          const float x0 = src[a], x1 = src[b];
          dst[a] = x0 * c - x1 * s;
          dst[b] = x0 * s + x1 * c;
        }
        if (dst != src) std::copy(src + p.n_rot, src + p.head_dim, dst + p.n_rot);
      }
    }
  });
}

}  // namespace orcd::engine::cpu
