#include "smollm3_reference.h"

#include <algorithm>
#include <cmath>

namespace orcd::testing {
namespace {

using Vec = std::vector<double>;

const std::vector<float>& T(const SmolLm3Weights& w, const std::string& name) {
  return w.tensors.at(name);
}

std::string Blk(int layer, const char* name) { return "blk." + std::to_string(layer) + "." + name; }

// y[r] = sum_c m[r][c] x[c]; m has x.size() columns.
Vec MatVec(const std::vector<float>& m, const Vec& x) {
  const size_t cols = x.size(), rows = m.size() / cols;
  Vec y(rows, 0.0);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) y[r] += m[r * cols + c] * x[c];
  }
  return y;
}

// x[offset, offset + n) / rms * gain, in place.
void RmsNorm(Vec& x, size_t offset, size_t n, const std::vector<float>& gain, double eps) {
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += x[offset + i] * x[offset + i];
  const double inv = 1.0 / std::sqrt(sum / static_cast<double>(n) + eps);
  for (size_t i = 0; i < n; ++i) x[offset + i] *= inv * gain[i];
}

// Rotates one head at position `pos`. NeoX pairs i with i + d/2; the
// original (llama) RoPE pairs 2i with 2i + 1. Frequencies base^(-2i/d).
void Rope(Vec& x, size_t offset, int d, int pos, double base, bool neox) {
  for (int i = 0; i < d / 2; ++i) {
    const double theta = pos * std::pow(base, -2.0 * i / d);
    const size_t a = offset + (neox ? i : 2 * i), b = offset + (neox ? i + d / 2 : 2 * i + 1);
    const double x0 = x[a], x1 = x[b];
    x[a] = x0 * std::cos(theta) - x1 * std::sin(theta);
    x[b] = x0 * std::sin(theta) + x1 * std::cos(theta);
  }
}

}  // namespace

std::vector<double> SmolLm3ReferenceLogits(const SmolLm3Weights& w,
                                           const std::vector<int32_t>& tokens,
                                           SmolLm3Variant variant) {
  const int n = static_cast<int>(tokens.size()), d = w.n_embd, hd = w.head_dim;
  const int group = w.n_head / w.n_head_kv;
  std::vector<Vec> x(n);
  for (int p = 0; p < n; ++p) {
    const auto& embd = T(w, "token_embd.weight");
    x[p].assign(embd.begin() + static_cast<int64_t>(tokens[p]) * d,
                embd.begin() + static_cast<int64_t>(tokens[p] + 1) * d);
  }
  for (int l = 0; l < w.n_layer; ++l) {
    std::vector<Vec> q(n), k(n), v(n);
    for (int p = 0; p < n; ++p) {
      Vec h = x[p];
      RmsNorm(h, 0, d, T(w, Blk(l, "attn_norm.weight")), w.norm_eps);
      q[p] = MatVec(T(w, Blk(l, "attn_q.weight")), h);
      k[p] = MatVec(T(w, Blk(l, "attn_k.weight")), h);
      v[p] = MatVec(T(w, Blk(l, "attn_v.weight")), h);
      // SmolLM3's NoPE layers: every fourth attends without positions.
      if (variant.no_rope_layers && (l + 1) % 4 == 0) continue;
      for (int head = 0; head < w.n_head; ++head) {
        Rope(q[p], head * hd, hd, p, w.rope_base, variant.neox_rope);
      }
      for (int head = 0; head < w.n_head_kv; ++head) {
        Rope(k[p], head * hd, hd, p, w.rope_base, variant.neox_rope);
      }
    }
    for (int p = 0; p < n; ++p) {
      Vec attended(static_cast<size_t>(w.n_head) * hd, 0.0);
      for (int head = 0; head < w.n_head; ++head) {
        const size_t qo = static_cast<size_t>(head) * hd,
                     ko = static_cast<size_t>(head / group) * hd;
        Vec score(p + 1);
        for (int s = 0; s <= p; ++s) {
          double dot = 0;
          for (int i = 0; i < hd; ++i) dot += q[p][qo + i] * k[s][ko + i];
          score[s] = dot / std::sqrt(static_cast<double>(hd));
        }
        const double top = *std::max_element(score.begin(), score.end());
        double total = 0;
        for (double& e : score) total += (e = std::exp(e - top));
        for (int s = 0; s <= p; ++s) {
          for (int i = 0; i < hd; ++i) attended[qo + i] += score[s] / total * v[s][ko + i];
        }
      }
      const Vec o = MatVec(T(w, Blk(l, "attn_output.weight")), attended);
      for (int i = 0; i < d; ++i) x[p][i] += o[i];

      Vec h = x[p];
      RmsNorm(h, 0, d, T(w, Blk(l, "ffn_norm.weight")), w.norm_eps);
      const Vec gate = MatVec(T(w, Blk(l, "ffn_gate.weight")), h);
      Vec act = MatVec(T(w, Blk(l, "ffn_up.weight")), h);
      for (size_t i = 0; i < act.size(); ++i) act[i] *= gate[i] / (1.0 + std::exp(-gate[i]));
      const Vec down = MatVec(T(w, Blk(l, "ffn_down.weight")), act);
      for (int i = 0; i < d; ++i) x[p][i] += down[i];
    }
  }
  std::vector<double> logits;
  for (int p = 0; p < n; ++p) {
    RmsNorm(x[p], 0, d, T(w, "output_norm.weight"), w.norm_eps);
    const Vec row = MatVec(T(w, "token_embd.weight"), x[p]);
    logits.insert(logits.end(), row.begin(), row.end());
  }
  return logits;
}

}  // namespace orcd::testing
