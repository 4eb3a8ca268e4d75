// The shape every decoder-only transformer file states in its metadata
// (<arch>.embedding_length, block_count, head counts, head size), read and
// checked once for all architecture plugins, and the per-layer naming and
// attention defaults that follow from it.
#ifndef ORCD_CPP_DECODER_SHAPE_H_
#define ORCD_CPP_DECODER_SHAPE_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "orcd/cpp/decoder_blocks.h"
#include "orcd/cpp/model_reader.h"

namespace orcd::sdk {

struct DecoderShape {
  uint32_t n_embd = 0;
  uint32_t n_layer = 0;
  uint32_t n_head = 0;
  uint32_t n_head_kv = 0;
  uint32_t head_dim = 0;
  std::string output_weight;  // output.weight, or token_embd.weight when tied
};

// The entry of a plugin's per-architecture table (structs with a `name`)
// for the model's architecture; throws CompileError naming `plugin` when
// the table has none.
template <class Traits, size_t N>
const Traits& ArchTraitsFor(const Traits (&table)[N], const ModelReader& m, const char* plugin) {
  for (const Traits& t : table) {
    if (t.name == m.architecture()) return t;
  }
  throw CompileError(ORCD_ERR_UNSUPPORTED, "architecture '" + m.architecture() +
                                               "' is not served by the " + plugin + " plugin");
}

// "blk.<layer>.<name>", GGUF's per-layer tensor naming.
inline std::string LayerTensor(uint32_t layer, const std::string& name) {
  return "blk." + std::to_string(layer) + "." + name;
}

// Throws CompileError naming the missing or inconsistent key.
inline DecoderShape ReadDecoderShape(const ModelReader& m) {
  DecoderShape s;
  s.n_embd = m.RequireArchU32("embedding_length");
  s.n_layer = m.RequireArchU32("block_count");
  // A block_count the file's tensors cannot back (4294967295 with two
  // layers) is refused at the first layer without its attention norm, before
  // a plan of billions of instructions is built.
  for (uint32_t layer = 0; layer < s.n_layer; ++layer) {
    if (!m.HasTensor(LayerTensor(layer, "attn_norm.weight"))) {
      throw CompileError(ORCD_ERR_MODEL_INVALID,
                         "block_count is " + std::to_string(s.n_layer) + " but tensor " +
                             LayerTensor(layer, "attn_norm.weight") + " is missing");
    }
  }
  s.n_head = m.RequireArchU32("attention.head_count");
  s.n_head_kv = m.ArchU32Or("attention.head_count_kv", s.n_head);
  if (s.n_head % s.n_head_kv != 0) {
    throw CompileError(ORCD_ERR_MODEL_INVALID, "head_count " + std::to_string(s.n_head) +
                                                   " is not a multiple of head_count_kv " +
                                                   std::to_string(s.n_head_kv));
  }
  // Heads need not be n_embd / n_head wide (gpt-oss: 2880 / 64 = 45, heads are 64).
  const uint32_t default_dim = s.n_embd % s.n_head == 0 ? s.n_embd / s.n_head : 0;
  s.head_dim = m.ArchU32Or("attention.key_length", default_dim);
  if (m.ArchU64Or("attention.value_length", s.head_dim) != s.head_dim) {
    throw CompileError(ORCD_ERR_UNSUPPORTED, "value_length different from key_length");
  }
  s.output_weight = m.HasTensor("output.weight") ? "output.weight" : "token_embd.weight";
  return s;
}

// <arch>.rope.dimension_count (default: the whole head), checked even and <= head_dim.
inline uint32_t ReadRopeDims(const ModelReader& m, uint32_t head_dim) {
  const uint32_t n_rot = m.ArchU32Or("rope.dimension_count", head_dim);
  if (n_rot > head_dim || n_rot % 2 != 0) {
    throw CompileError(ORCD_ERR_MODEL_INVALID, "rope.dimension_count " + std::to_string(n_rot) +
                                                   " must be even and <= head dim");
  }
  return n_rot;
}

// A mixture-of-experts file's <arch>.expert_count and expert_used_count,
// checked 1 <= used <= count.
struct ExpertCounts {
  uint32_t n_expert = 0;
  uint32_t n_expert_used = 0;
};

inline ExpertCounts ReadExpertCounts(const ModelReader& m) {
  ExpertCounts e;
  e.n_expert = m.RequireArchU32("expert_count");
  e.n_expert_used = m.RequireArchU32("expert_used_count");
  if (e.n_expert_used == 0 || e.n_expert_used > e.n_expert) {
    throw CompileError(ORCD_ERR_MODEL_INVALID,
                       "expert_used_count " + std::to_string(e.n_expert_used) +
                           " must be 1..expert_count (" + std::to_string(e.n_expert) + ")");
  }
  return e;
}

// An attention block with the shape's heads, the usual 1/sqrt(head_dim)
// scale and blk.N.attn_norm.weight; the caller names the projections.
inline AttentionBlock BasicAttention(const DecoderShape& s, float norm_eps, uint32_t layer) {
  AttentionBlock b;
  b.layer = layer;
  b.n_head = s.n_head;
  b.n_head_kv = s.n_head_kv;
  b.head_dim = s.head_dim;
  b.norm_eps = norm_eps;
  b.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  b.norm = LayerTensor(layer, "attn_norm.weight");
  b.o = LayerTensor(layer, "attn_output.weight");
  return b;
}

// The output norm (LayerNorm when `norm_bias` is set, else RMSNorm) and the
// LM head into the phase's logits register, soft-capped when softcap > 0.
inline void EmitOutputHead(PlanWriter& w, orcd_plan_phase phase, int32_t x, const DecoderShape& s,
                           float norm_eps, const std::string& norm_bias = "",
                           float softcap = 0.0f) {
  const int32_t h = EmitPreNorm(w, phase, x, "output_norm.weight", norm_bias, norm_eps);
  const int32_t logits = w.NewRegister();
  if (softcap > 0.0f) {
    orcd_op_logits_params p{};
    p.softcap = softcap;
    w.Emit(phase, ORCD_OP_LOGITS, {h}, {logits}, {s.output_weight}, p);
  } else {
    w.Emit(phase, ORCD_OP_LOGITS, {h}, {logits}, {s.output_weight});
  }
  w.Logits(phase, logits);
}

}  // namespace orcd::sdk

#endif  // ORCD_CPP_DECODER_SHAPE_H_
