// MOE on the CPU: routes every token to n_expert_used experts from its router
// logits, then runs expert by expert over the tokens routed to it (gathered
// into one small batch), so each picked expert's gate/up/down rows are read
// once per batch and the experts nobody picked are never touched. The expert
// matmuls are row slices of the 3-D weights through the ordinary weight
// kernels (MatmulRows), split across the pool by rows.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "host/engine/cpu/cpu_adapters.h"
#include "host/engine/cpu/weight_kernels.h"
#include "host/engine/op_shapes.h"

namespace orcd::engine::cpu {
namespace {

struct Route {
  int32_t expert[kMaxMoeExpertsUsed];
  float weight[kMaxMoeExpertsUsed];
};

// The k largest of `values` (ties: lower index first), descending.
void TopK(const float* values, int64_t n, int64_t k, int32_t* out) {
  thread_local std::vector<int32_t> idx;  // reused: no allocation per token
  idx.resize(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int32_t a, int32_t b) {
    return values[a] > values[b] || (values[a] == values[b] && a < b);
  });
  std::copy(idx.begin(), idx.begin() + k, out);
}

Route RouteToken(const orcd_op_moe_params& p, const float* logits) {
  Route r{};
  const int64_t e = p.n_expert, k = p.n_expert_used;
  if (p.gating == ORCD_MOE_GATING_SOFTMAX_TOPK) {
    // gpt-oss: pick by raw logit, softmax over the picked logits only.
    TopK(logits, e, k, r.expert);
    const float max = logits[r.expert[0]];
    float sum = 0.0f;
    for (int64_t i = 0; i < k; ++i) sum += r.weight[i] = std::exp(logits[r.expert[i]] - max);
    for (int64_t i = 0; i < k; ++i) r.weight[i] /= sum;
    return r;
  }
  // Softmax over all experts, then the k most probable (optionally renormalised).
  thread_local std::vector<float> probs;
  probs.assign(logits, logits + e);
  const float max = *std::max_element(probs.begin(), probs.end());
  float sum = 0.0f;
  for (float& v : probs) sum += v = std::exp(v - max);
  for (float& v : probs) v /= sum;
  TopK(probs.data(), e, k, r.expert);
  float picked = 0.0f;
  for (int64_t i = 0; i < k; ++i) picked += r.weight[i] = probs[r.expert[i]];
  if (p.normalize_weights) {
    for (int64_t i = 0; i < k; ++i) r.weight[i] /= picked;
  }
  return r;
}

// h = act(g, u), written over g.
void Activate(const orcd_op_moe_params& p, float* g, const float* u, int64_t n) {
  if (p.activation == ORCD_MOE_ACT_SWIGLU_OAI) {
    for (int64_t i = 0; i < n; ++i) {
      const float x = std::min(g[i], p.limit);
      const float y = std::clamp(u[i], -p.limit, p.limit);
      g[i] = x / (1.0f + std::exp(-p.alpha * x)) * (y + 1.0f);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) g[i] = g[i] / (1.0f + std::exp(-g[i])) * u[i];
}

// y[m][rows] = W[expert rows] x[m][cols] (+ bias), split across the pool by rows.
void ExpertMatmul(ExecContext& ctx, const WeightRef& w, const WeightRef* bias, int64_t expert,
                  const float* x, int64_t m, float* y, TokenKind kind) {
  const int64_t rows = w.ne[1];
  const int64_t row0 = expert * rows;
  const float* b = bias ? reinterpret_cast<const float*>(bias->data) + row0 : nullptr;
  const int64_t grain = std::max<int64_t>(16, rows / (4 * ctx.pool->size()));
  ParallelRange(ctx, rows, grain, [&](int64_t r0, int64_t r1, int) {
    MatmulRows(w, row0 + r0, r1 - r0, x, m, y + r0, rows, ctx.q8_activations, kind);
    if (b == nullptr) return;
    for (int64_t t = 0; t < m; ++t) {
      for (int64_t r = r0; r < r1; ++r) y[t * rows + r] += b[r];
    }
  });
}

// Bytes of one expert's slice of w (and of its bias).
uint64_t ExpertBytes(const WeightRef& w, const WeightRef* bias) {
  uint64_t bytes = w.row_bytes * static_cast<uint64_t>(w.ne[1]);
  if (bias) bytes += static_cast<uint64_t>(w.ne[1]) * sizeof(float);
  return bytes;
}

}  // namespace

void RunMoe(const BoundInstruction& insn, ExecContext& ctx) {
  const auto p = insn.ParamsAs<orcd_op_moe_params>();
  const WeightRef& gate = *insn.weights[0];
  const WeightRef& up = *insn.weights[1];
  const WeightRef& down = *insn.weights[2];
  const bool biased = insn.weights.size() == 6;
  const WeightRef* gate_b = biased ? insn.weights[3] : nullptr;
  const WeightRef* up_b = biased ? insn.weights[4] : nullptr;
  const WeightRef* down_b = biased ? insn.weights[5] : nullptr;
  const int64_t d = insn.out[0].width;
  const int64_t f = gate.ne[1];
  const int64_t n = ctx.n_tokens;
  const int64_t k = p.n_expert_used;
  const float* x = ctx.In(insn, 0);
  const float* logits = ctx.In(insn, 1);
  float* y = ctx.Out(insn, 0);

  // Scratch reused across calls (the executor's thread only): routes, the
  // tokens of each expert, and the gathered activations of one expert.
  thread_local std::vector<Route> routes;
  // Per expert and token kind (0 prompt, 1 generated): t * k + slot. The
  // kinds run apart so that each keeps its own arithmetic (TokenKind).
  thread_local std::vector<std::vector<int64_t>> picks;
  thread_local std::vector<float> xs, gs, us, ds;
  routes.resize(static_cast<size_t>(n));
  picks.resize(static_cast<size_t>(2 * p.n_expert));
  for (auto& list : picks) list.clear();
  for (int64_t t = 0; t < n; ++t) {
    routes[t] = RouteToken(p, logits + t * p.n_expert);
    const int64_t kind = ctx.Generated(t) ? 1 : 0;
    for (int64_t i = 0; i < k; ++i) picks[2 * routes[t].expert[i] + kind].push_back(t * k + i);
  }

  std::fill(y, y + n * d, 0.0f);
  uint64_t bytes = 0;
  for (int64_t e = 0; e < p.n_expert; ++e) {
    bool read = false;
    for (int64_t kind = 0; kind < 2; ++kind) {
      const std::vector<int64_t>& list = picks[static_cast<size_t>(2 * e + kind)];
      if (list.empty()) continue;  // never read: the point of the op
      read = true;
      const TokenKind token_kind = kind == 1 ? TokenKind::kGenerated : TokenKind::kPrompt;
      const auto m = static_cast<int64_t>(list.size());
      xs.resize(static_cast<size_t>(m * d));
      gs.resize(static_cast<size_t>(m * f));
      us.resize(static_cast<size_t>(m * f));
      ds.resize(static_cast<size_t>(m * d));
      for (int64_t i = 0; i < m; ++i) {
        std::memcpy(xs.data() + i * d, x + (list[i] / k) * d,
                    static_cast<size_t>(d) * sizeof(float));
      }
      ExpertMatmul(ctx, gate, gate_b, e, xs.data(), m, gs.data(), token_kind);
      ExpertMatmul(ctx, up, up_b, e, xs.data(), m, us.data(), token_kind);
      Activate(p, gs.data(), us.data(), m * f);
      ExpertMatmul(ctx, down, down_b, e, gs.data(), m, ds.data(), token_kind);
      for (int64_t i = 0; i < m; ++i) {
        const int64_t t = list[i] / k;
        const float w = routes[t].weight[list[i] % k];
        float* yt = y + t * d;
        const float* dt = ds.data() + i * d;
        for (int64_t c = 0; c < d; ++c) yt[c] += w * dt[c];
      }
    }
    if (read)
      bytes += ExpertBytes(gate, gate_b) + ExpertBytes(up, up_b) + ExpertBytes(down, down_b);
  }
  ctx.weight_bytes_read = bytes;
}

}  // namespace orcd::engine::cpu
