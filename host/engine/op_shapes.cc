#include "host/engine/op_shapes.h"

#include <cmath>

#include "host/engine/lowered_ops.h"
#include "host/engine/plan_error.h"
#include "host/gguf/ggml_type_traits.h"

namespace orcd::engine {
namespace {

[[noreturn]] void Fail(const ShapeQuery& q, PlanErrorKind kind, const std::string& what) {
  throw PlanError(kind, q.label + ": " + what);
}

void ExpectCounts(const ShapeQuery& q, size_t in_min, size_t in_max, size_t w_min, size_t w_max,
                  size_t out_min, size_t out_max) {
  const auto check = [&](size_t n, size_t lo, size_t hi, const char* what) {
    if (n < lo || n > hi) {
      Fail(q, PlanErrorKind::kShapeMismatch,
           std::to_string(n) + " " + what + ", expected " + std::to_string(lo) +
               (hi != lo ? ".." + std::to_string(hi) : ""));
    }
  };
  check(q.insn->inputs.size(), in_min, in_max, "inputs");
  check(q.weights.size(), w_min, w_max, "weights");
  check(q.insn->outputs.size(), out_min, out_max, "outputs");
}

// Parameter blocks: at least the v1 struct (later minors may append fields).
template <class P>
P RequireParams(const ShapeQuery& q) {
  if (q.insn->params.size() < sizeof(P)) {
    Fail(q, PlanErrorKind::kBadParams,
         "parameter block of " + std::to_string(q.insn->params.size()) + " bytes, expected " +
             std::to_string(sizeof(P)));
  }
  return q.insn->ParamsAs<P>();
}

// Small tensors the host reads directly as f32 (norm weights, biases, sinks).
void ExpectF32Vector(const ShapeQuery& q, const WeightRef& w, int64_t elements, const char* role) {
  if (w.type != ORCD_TYPE_F32) {
    Fail(q, PlanErrorKind::kUnsupportedWeightType,
         std::string(role) + " '" + w.name + "' is " + GgmlTypeName(w.type) + ", expected F32");
  }
  if (w.elements() != elements) {
    Fail(q, PlanErrorKind::kShapeMismatch,
         std::string(role) + " '" + w.name + "' has " + std::to_string(w.elements()) +
             " elements, expected " + std::to_string(elements));
  }
}

void ExpectWidth(const ShapeQuery& q, size_t input, int64_t width, const std::string& why) {
  if (q.in_widths[input] != width) {
    Fail(q, PlanErrorKind::kShapeMismatch,
         "input " + std::to_string(input) + " has width " + std::to_string(q.in_widths[input]) +
             ", expected " + std::to_string(width) + " (" + why + ")");
  }
}

void ExpectMatrix(const ShapeQuery& q, const WeightRef& w) {
  if (w.ne[2] != 1 || w.ne[3] != 1) {
    Fail(q, PlanErrorKind::kShapeMismatch,
         "weight '" + w.name + "' (" + w.ShapeString() + ") is not a matrix");
  }
}

void Embedding(ShapeQuery& q) {
  ExpectCounts(q, 1, 1, 1, 1, 1, 1);
  if (q.insn->inputs[0] != ORCD_REG_TOKENS) {
    Fail(q, PlanErrorKind::kBadRegister, "EMBEDDING reads the token register (ORCD_REG_TOKENS)");
  }
  ExpectMatrix(q, *q.weights[0]);
  if (!q.insn->params.empty()) {
    const float scale = RequireParams<orcd_op_embedding_params>(q).scale;
    if (!(scale > 0.0f) || !std::isfinite(scale))
      Fail(q, PlanErrorKind::kBadParams, "scale must be finite and > 0");
  }
  q.out_widths = {q.weights[0]->cols()};
}

void Matmul(ShapeQuery& q) {
  ExpectCounts(q, 1, 1, 1, 2, 1, ORCD_OP_MAX_OUTPUTS);
  const WeightRef& w = *q.weights[0];
  ExpectMatrix(q, w);
  ExpectWidth(q, 0, w.cols(), "the columns of '" + w.name + "' " + w.ShapeString());
  if (q.weights.size() == 2) ExpectF32Vector(q, *q.weights[1], w.rows(), "bias");
  const size_t n_out = q.insn->outputs.size();
  if (n_out == 1) {
    q.out_widths = {w.rows()};
    return;
  }
  const auto p = RequireParams<orcd_op_matmul_params>(q);
  int64_t total = 0;
  for (size_t i = 0; i < n_out; ++i) {
    if (p.output_rows[i] == 0)
      Fail(q, PlanErrorKind::kBadParams, "output_rows[" + std::to_string(i) + "] is 0");
    q.out_widths.push_back(p.output_rows[i]);
    total += p.output_rows[i];
  }
  if (total != w.rows()) {
    Fail(q, PlanErrorKind::kShapeMismatch,
         "output_rows sum to " + std::to_string(total) + " but '" + w.name + "' has " +
             std::to_string(w.rows()) + " rows");
  }
}

void Elementwise(ShapeQuery& q) {
  ExpectCounts(q, 2, 2, 0, 0, 1, 1);
  ExpectWidth(q, 1, q.in_widths[0], "both operands have one width");
  q.out_widths = {q.in_widths[0]};
}

void RmsNorm(ShapeQuery& q) {
  ExpectCounts(q, 1, 1, 0, 1, 1, 1);
  const auto p = RequireParams<orcd_op_norm_params>(q);
  if (!(p.eps >= 0.0f) || !std::isfinite(p.eps))
    Fail(q, PlanErrorKind::kBadParams, "eps must be finite and >= 0");
  const int64_t group = p.group_size == 0 ? q.in_widths[0] : p.group_size;
  if (q.in_widths[0] % group != 0) {
    Fail(q, PlanErrorKind::kShapeMismatch,
         "width " + std::to_string(q.in_widths[0]) + " is not a multiple of group_size " +
             std::to_string(group));
  }
  if (q.weights.size() == 1) ExpectF32Vector(q, *q.weights[0], group, "norm weight");
  q.out_widths = {q.in_widths[0]};
}

void LayerNorm(ShapeQuery& q) {
  ExpectCounts(q, 1, 1, 0, 2, 1, 1);
  const auto p = RequireParams<orcd_op_norm_params>(q);
  if (!(p.eps >= 0.0f) || !std::isfinite(p.eps))
    Fail(q, PlanErrorKind::kBadParams, "eps must be finite and >= 0");
  if (p.group_size != 0) Fail(q, PlanErrorKind::kBadParams, "LAYER_NORM has no group_size");
  if (q.weights.size() == 1)
    Fail(q, PlanErrorKind::kShapeMismatch, "LAYER_NORM takes gamma and beta, or neither");
  for (const WeightRef* w : q.weights) ExpectF32Vector(q, *w, q.in_widths[0], "norm weight");
  q.out_widths = {q.in_widths[0]};
}

void Rope(ShapeQuery& q) {
  ExpectCounts(q, 1, 1, 0, 1, 1, 1);
  const auto p = RequireParams<orcd_op_rope_params>(q);
  if (p.mode != ORCD_ROPE_NORMAL && p.mode != ORCD_ROPE_NEOX) {
    Fail(q, PlanErrorKind::kBadParams, "unknown rope mode " + std::to_string(p.mode));
  }
  if (p.head_dim == 0 || q.in_widths[0] % p.head_dim != 0) {
    Fail(q, PlanErrorKind::kShapeMismatch,
         "width " + std::to_string(q.in_widths[0]) + " is not a multiple of head_dim " +
             std::to_string(p.head_dim));
  }
  if (p.n_rot == 0 || p.n_rot % 2 != 0 || p.n_rot > p.head_dim || p.n_rot > kMaxRopeDims) {
    Fail(q, PlanErrorKind::kBadParams,
         "n_rot " + std::to_string(p.n_rot) + " must be even, > 0 and <= head_dim");
  }
  if (!(p.freq_base > 0.0f) || !(p.freq_scale > 0.0f) || !std::isfinite(p.ext_factor) ||
      !std::isfinite(p.attn_factor)) {
    Fail(q, PlanErrorKind::kBadParams, "freq_base and freq_scale must be > 0");
  }
  if (p.ext_factor != 0.0f &&
      (p.n_ctx_orig == 0 || !(p.beta_fast > 0.0f) || !(p.beta_slow > 0.0f))) {
    Fail(q, PlanErrorKind::kBadParams, "YaRN needs n_ctx_orig, beta_fast and beta_slow");
  }
  if (q.weights.size() == 1)
    ExpectF32Vector(q, *q.weights[0], p.n_rot / 2, "rope frequency factors");
  q.out_widths = {q.in_widths[0]};
}

void Attention(ShapeQuery& q) {
  ExpectCounts(q, 3, 3, 0, 1, 1, 1);
  const auto p = RequireParams<orcd_op_attention_params>(q);
  const KvStateDesc* desc = nullptr;
  for (const KvStateDesc& d : *q.kv_states) {
    if (d.layer == p.kv_layer) desc = &d;
  }
  if (desc == nullptr) {
    throw PlanError(PlanErrorKind::kUnknownKvState,
                    q.label + ": no KV state was declared for layer " + std::to_string(p.kv_layer));
  }
  if (p.n_head == 0 || p.n_head_kv == 0 || p.n_head % p.n_head_kv != 0) {
    Fail(q, PlanErrorKind::kBadParams, "n_head must be a positive multiple of n_head_kv");
  }
  if (p.n_head_kv != desc->n_kv_heads || p.head_dim != desc->head_dim) {
    Fail(q, PlanErrorKind::kShapeMismatch,
         "heads/head_dim (" + std::to_string(p.n_head_kv) + "/" + std::to_string(p.head_dim) +
             ") differ from the KV state's (" + std::to_string(desc->n_kv_heads) + "/" +
             std::to_string(desc->head_dim) + ")");
  }
  if (!(p.scale > 0.0f) || !std::isfinite(p.scale) || !(p.softcap >= 0.0f)) {
    Fail(q, PlanErrorKind::kBadParams, "scale must be > 0 and softcap >= 0");
  }
  const int64_t q_width = static_cast<int64_t>(p.n_head) * p.head_dim;
  const int64_t kv_width = static_cast<int64_t>(p.n_head_kv) * p.head_dim;
  ExpectWidth(q, 0, q_width, "q: n_head * head_dim");
  ExpectWidth(q, 1, kv_width, "k: n_head_kv * head_dim");
  ExpectWidth(q, 2, kv_width, "v: n_head_kv * head_dim");
  if (q.weights.size() == 1) ExpectF32Vector(q, *q.weights[0], p.n_head, "attention sinks");
  q.out_widths = {q_width};
}

void Swiglu(ShapeQuery& q) {
  ExpectCounts(q, 1, 2, 0, 0, 1, 1);
  if (q.in_widths.size() == 2) {
    ExpectWidth(q, 1, q.in_widths[0], "gate and up have one width");
    q.out_widths = {q.in_widths[0]};
    return;
  }
  if (q.in_widths[0] % 2 != 0) Fail(q, PlanErrorKind::kShapeMismatch, "fused gate|up width is odd");
  q.out_widths = {q.in_widths[0] / 2};
}

void Logits(ShapeQuery& q) {
  ExpectCounts(q, 1, 1, 1, 1, 1, 1);
  const WeightRef& w = *q.weights[0];
  ExpectMatrix(q, w);
  ExpectWidth(q, 0, w.cols(), "the columns of '" + w.name + "' " + w.ShapeString());
  if (!q.insn->params.empty() && !(RequireParams<orcd_op_logits_params>(q).softcap >= 0.0f)) {
    Fail(q, PlanErrorKind::kBadParams, "softcap must be >= 0");
  }
  q.out_widths = {w.rows()};
}

void PositionEmbedding(ShapeQuery& q) {
  ExpectCounts(q, 0, 0, 1, 1, 1, 1);
  ExpectMatrix(q, *q.weights[0]);
  q.out_widths = {q.weights[0]->cols()};
}

void Gelu(ShapeQuery& q) {
  ExpectCounts(q, 1, 1, 0, 0, 1, 1);
  q.out_widths = {q.in_widths[0]};
}

// A stack of E expert matrices: ne = [cols, rows, E].
void ExpectExperts(const ShapeQuery& q, const WeightRef& w, int64_t cols, int64_t rows,
                   int64_t experts, const char* role) {
  if (w.ne[0] != cols || w.ne[1] != rows || w.ne[2] != experts || w.ne[3] != 1) {
    Fail(q, PlanErrorKind::kShapeMismatch,
         std::string(role) + " '" + w.name + "' is " + w.ShapeString() + ", expected " +
             std::to_string(cols) + "x" + std::to_string(rows) + "x" + std::to_string(experts));
  }
}

void Moe(ShapeQuery& q) {
  ExpectCounts(q, 2, 2, 3, 6, 1, 1);
  if (q.weights.size() != 3 && q.weights.size() != 6) {
    Fail(q, PlanErrorKind::kShapeMismatch, "MOE takes 3 expert weights, or 3 weights and 3 biases");
  }
  const auto p = RequireParams<orcd_op_moe_params>(q);
  if (p.n_expert == 0 || p.n_expert_used == 0 || p.n_expert_used > p.n_expert ||
      p.n_expert_used > kMaxMoeExpertsUsed) {
    Fail(q, PlanErrorKind::kBadParams,
         "n_expert_used " + std::to_string(p.n_expert_used) + " must be in 1..n_expert (" +
             std::to_string(p.n_expert) + ") and <= " + std::to_string(kMaxMoeExpertsUsed));
  }
  if (p.gating != ORCD_MOE_GATING_SOFTMAX_TOPK && p.gating != ORCD_MOE_GATING_SOFTMAX) {
    Fail(q, PlanErrorKind::kBadParams, "unknown MOE gating " + std::to_string(p.gating));
  }
  if (p.activation != ORCD_MOE_ACT_SWIGLU && p.activation != ORCD_MOE_ACT_SWIGLU_OAI) {
    Fail(q, PlanErrorKind::kBadParams, "unknown MOE activation " + std::to_string(p.activation));
  }
  if (p.activation == ORCD_MOE_ACT_SWIGLU_OAI &&
      (!std::isfinite(p.alpha) || !(p.limit > 0.0f) || !std::isfinite(p.limit))) {
    Fail(q, PlanErrorKind::kBadParams, "SWIGLU_OAI needs a finite alpha and a limit > 0");
  }
  const int64_t d = q.in_widths[0];
  const int64_t e = p.n_expert;
  const int64_t f = q.weights[0]->ne[1];
  ExpectWidth(q, 1, e, "router logits: one per expert");
  ExpectExperts(q, *q.weights[0], d, f, e, "gate experts");
  ExpectExperts(q, *q.weights[1], d, f, e, "up experts");
  ExpectExperts(q, *q.weights[2], f, d, e, "down experts");
  if (q.weights.size() == 6) {
    ExpectF32Vector(q, *q.weights[3], f * e, "gate bias");
    ExpectF32Vector(q, *q.weights[4], f * e, "up bias");
    ExpectF32Vector(q, *q.weights[5], d * e, "down bias");
  }
  q.out_widths = {d};
}

// Lowered ops (lowering.h) come from validated plans: these rules give their
// output widths and re-check what binding relies on.
void AddRmsNorm(ShapeQuery& q) {
  ExpectCounts(q, 2, 2, 0, 1, 2, 2);
  ExpectWidth(q, 1, q.in_widths[0], "both operands have one width");
  if (RequireParams<LoweredNormParams>(q).norm.group_size != 0)
    Fail(q, PlanErrorKind::kBadParams, "ADD_RMS_NORM normalizes whole rows");
  if (q.weights.size() == 1) ExpectF32Vector(q, *q.weights[0], q.in_widths[0], "norm weight");
  q.out_widths = {q.in_widths[0], q.in_widths[0]};
}

// The plugin's ATTENTION rule on the instruction it came from, and V's bias.
void AttentionFused(ShapeQuery& q) {
  const auto p = RequireParams<LoweredAttentionParams>(q);
  if (q.weights.size() != p.has_sinks + p.has_v_bias)
    Fail(q, PlanErrorKind::kBadParams, "ATTENTION_FUSED weights do not match its parameters");
  PlanInstruction plain = *q.insn;
  plain.opcode = ORCD_OP_ATTENTION;
  const auto* b = reinterpret_cast<const uint8_t*>(&p.attention);
  plain.params.assign(b, b + sizeof p.attention);
  ShapeQuery plain_q = q;
  plain_q.insn = &plain;
  plain_q.weights.resize(p.has_sinks);
  plain.weights.resize(p.has_sinks);
  Attention(plain_q);
  if (p.has_v_bias) ExpectF32Vector(q, *q.weights.back(), q.in_widths[2], "v bias");
  q.out_widths = plain_q.out_widths;
}

void RopeFused(ShapeQuery& q) {
  ExpectCounts(q, 1, 2, 0, 3, 1, 2);
  const auto p = RequireParams<LoweredRopeParams>(q);
  size_t w = p.has_freq_factors ? 1 : 0;
  for (size_t i = 0; i < q.in_widths.size(); ++i) {
    if (p.rope.head_dim == 0 || q.in_widths[i] % p.rope.head_dim != 0)
      Fail(q, PlanErrorKind::kShapeMismatch, "width is not a multiple of head_dim");
    if (p.has_bias[i] && w < q.weights.size())
      ExpectF32Vector(q, *q.weights[w++], q.in_widths[i], "bias");
  }
  if (w != q.weights.size() || q.insn->outputs != q.insn->inputs)
    Fail(q, PlanErrorKind::kBadParams, "ROPE_FUSED operands do not match its parameters");
  q.out_widths = q.in_widths;
}

// Gate and up: two matrices of one shape; g, u and h one row each.
void MatmulGlu(ShapeQuery& q) {
  ExpectCounts(q, 1, 1, 2, 2, 3, 3);
  RequireParams<LoweredMatvecParams>(q);
  const WeightRef& gate = *q.weights[0];
  const WeightRef& up = *q.weights[1];
  ExpectMatrix(q, gate);
  ExpectMatrix(q, up);
  if (gate.rows() != up.rows() || gate.cols() != up.cols())
    Fail(q, PlanErrorKind::kShapeMismatch, "MATMUL_GLU's gate and up differ in shape");
  ExpectWidth(q, 0, gate.cols(), "the columns of '" + gate.name + "' " + gate.ShapeString());
  q.out_widths = {gate.rows(), gate.rows(), gate.rows()};
}

// A weight per output, each a matrix over the one input.
void MatmulMulti(ShapeQuery& q) {
  ExpectCounts(q, 1, 1, 2, 4, 2, 4);
  RequireParams<LoweredMatvecParams>(q);
  if (q.weights.size() != q.insn->outputs.size())
    Fail(q, PlanErrorKind::kShapeMismatch, "MATMUL_MULTI takes one weight per output");
  for (const WeightRef* w : q.weights) {
    ExpectMatrix(q, *w);
    ExpectWidth(q, 0, w->cols(), "the columns of '" + w->name + "' " + w->ShapeString());
    q.out_widths.push_back(w->rows());
  }
}

}  // namespace

bool InferShapes(ShapeQuery& q) {
  switch (q.insn->opcode) {
    case ORCD_OP_EMBEDDING:
      Embedding(q);
      return true;
    case ORCD_OP_MATMUL:
    case kOpMatmulSharedInput:
      Matmul(q);
      return true;
    case ORCD_OP_ADD:
    case ORCD_OP_MUL:
      Elementwise(q);
      return true;
    case ORCD_OP_RMS_NORM:
      RmsNorm(q);
      return true;
    case ORCD_OP_LAYER_NORM:
      LayerNorm(q);
      return true;
    case ORCD_OP_ROPE:
      Rope(q);
      return true;
    case ORCD_OP_ATTENTION:
      Attention(q);
      return true;
    case ORCD_OP_SWIGLU:
    case ORCD_OP_GEGLU:
    case kOpSwigluQ8:
      Swiglu(q);
      return true;
    case ORCD_OP_LOGITS:
      Logits(q);
      return true;
    case ORCD_OP_POSITION_EMBEDDING:
      PositionEmbedding(q);
      return true;
    case ORCD_OP_GELU:
      Gelu(q);
      return true;
    case ORCD_OP_MOE:
    case kOpMoeGlu:
      Moe(q);
      return true;
    case kOpAddRmsNorm:
      AddRmsNorm(q);
      return true;
    case kOpRopeFused:
      RopeFused(q);
      return true;
    case kOpAttentionFused:
      AttentionFused(q);
      return true;
    case kOpMatmulGlu:
      MatmulGlu(q);
      return true;
    case kOpMatmulMulti:
      MatmulMulti(q);
      return true;
    default:
      return false;
  }
}

}  // namespace orcd::engine
