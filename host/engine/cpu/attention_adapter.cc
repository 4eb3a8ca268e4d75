// ATTENTION on the CPU: appends the batch's K and V to the slot's cache, then
// for every (token, head) computes softmax(scale * q.K) over the positions the
// query may see (causal, limited by the state's sliding window; optional
// sinks join the denominator only) and the weighted sum of V. Scores and
// softmax in f32; K/V are read in the cache's type (f16 by default).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "host/engine/cpu/cpu_adapters.h"
#include "host/engine/cpu/simd.h"

namespace orcd::engine::cpu {
namespace {

void AppendKv(const KvCache& kv, const KvCache::Layer& layer, const float* k, const float* v,
              int64_t n_tokens, int64_t pos0) {
  const SimdKernels& s = Simd();
  const int64_t d = layer.desc.head_dim;
  const int64_t heads = layer.desc.n_kv_heads;
  const int64_t ctx_len = kv.context_length();
  for (int64_t t = 0; t < n_tokens; ++t) {
    for (int64_t g = 0; g < heads; ++g) {
      const int64_t at = (g * ctx_len + pos0 + t) * d;
      const float* kt = k + (t * heads + g) * d;
      const float* vt = v + (t * heads + g) * d;
      if (kv.type() == KvType::kF16) {
        s.f32_to_f16(kt, static_cast<uint16_t*>(layer.k) + at, d);
        s.f32_to_f16(vt, static_cast<uint16_t*>(layer.v) + at, d);
      } else {
        std::memcpy(static_cast<float*>(layer.k) + at, kt, d * sizeof(float));
        std::memcpy(static_cast<float*>(layer.v) + at, vt, d * sizeof(float));
      }
    }
  }
}

}  // namespace

void RunAttention(const BoundInstruction& insn, ExecContext& ctx) {
  const auto p = insn.ParamsAs<orcd_op_attention_params>();
  const KvCache& kv = *ctx.kv;
  const KvCache::Layer& layer = kv.layer(insn.kv_index);
  AppendKv(kv, layer, ctx.In(insn, 1), ctx.In(insn, 2), ctx.n_tokens, ctx.pos0);

  const SimdKernels& s = Simd();
  const bool f16 = kv.type() == KvType::kF16;
  const int64_t d = p.head_dim;
  const int64_t n_head = p.n_head;
  const int64_t group = p.n_head / p.n_head_kv;
  const int64_t ctx_len = kv.context_length();
  const int64_t window = layer.desc.sliding_window;
  const float* sinks =
      insn.weights.empty() ? nullptr : reinterpret_cast<const float*>(insn.weights[0]->data);
  const float* q = ctx.In(insn, 0);
  float* o = ctx.Out(insn, 0);
  const size_t elem = kv.element_size();

  ParallelRange(ctx, ctx.n_tokens * n_head, 4, [&](int64_t begin, int64_t end, int thread) {
    float* scores = ctx.Workspace(thread);
    for (int64_t item = begin; item < end; ++item) {
      const int64_t t = item / n_head;
      const int64_t h = item % n_head;
      const int64_t g = h / group;
      const int64_t pos = ctx.pos0 + t;
      const int64_t first = window > 0 ? std::max<int64_t>(0, pos - window + 1) : 0;
      const int64_t count = pos - first + 1;
      const float* qh = q + t * n_head * d + h * d;
      const auto* k_base = static_cast<const uint8_t*>(layer.k) + (g * ctx_len + first) * d * elem;
      const auto* v_base = static_cast<const uint8_t*>(layer.v) + (g * ctx_len + first) * d * elem;

      float max_score = -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < count; ++j) {
        const uint8_t* kj = k_base + j * d * elem;
        float score = f16 ? s.dot_f16(reinterpret_cast<const uint16_t*>(kj), qh, d)
                          : s.dot_f32(reinterpret_cast<const float*>(kj), qh, d);
        score *= p.scale;
        if (p.softcap > 0.0f) score = p.softcap * std::tanh(score / p.softcap);
        scores[j] = score;
        max_score = std::max(max_score, score);
      }
      if (sinks) max_score = std::max(max_score, sinks[h]);
      float sum = sinks ? std::exp(sinks[h] - max_score) : 0.0f;
      for (int64_t j = 0; j < count; ++j) {
        scores[j] = std::exp(scores[j] - max_score);
        sum += scores[j];
      }
      const float inv = 1.0f / sum;
      float* oh = o + t * n_head * d + h * d;
      std::fill(oh, oh + d, 0.0f);
      for (int64_t j = 0; j < count; ++j) {
        const uint8_t* vj = v_base + j * d * elem;
        if (f16) {
          s.axpy_f16(scores[j] * inv, reinterpret_cast<const uint16_t*>(vj), oh, d);
        } else {
          s.axpy_f32(scores[j] * inv, reinterpret_cast<const float*>(vj), oh, d);
        }
      }
    }
  });
}

}  // namespace orcd::engine::cpu
