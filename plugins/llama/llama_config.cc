#include "llama_config.h"

#include <string_view>

#include "orcd/cpp/rope_config.h"

namespace orcd::llama {
namespace {

// What differs between the served architectures besides tensor names that
// the plan discovers by presence (fused Q|K|V, fused gate|up, biases, q/k
// norms, routed experts, tied output): the RoPE pairing.
struct ArchTraits {
  std::string_view name;
  orcd_rope_mode rope_mode;
};

constexpr ArchTraits kTraits[] = {
    {"llama", ORCD_ROPE_NORMAL}, {"qwen2", ORCD_ROPE_NEOX},    {"phi3", ORCD_ROPE_NEOX},
    {"qwen3", ORCD_ROPE_NEOX},   {"qwen3moe", ORCD_ROPE_NEOX},
};

}  // namespace

const char* const kArchitectures[] = {"llama", "qwen2", "phi3", "qwen3", "qwen3moe"};
const uint32_t kArchitectureCount = sizeof(kArchitectures) / sizeof(kArchitectures[0]);

LlamaConfig ReadLlamaConfig(const sdk::ModelReader& m) {
  const ArchTraits* traits = &sdk::ArchTraitsFor(kTraits, m, "llama");
  LlamaConfig c;
  c.arch = m.architecture();
  static_cast<sdk::DecoderShape&>(c) = sdk::ReadDecoderShape(m);
  c.norm_eps = static_cast<float>(m.RequireArchF64("attention.layer_norm_rms_epsilon"));
  const uint32_t n_rot = sdk::ReadRopeDims(m, c.head_dim);
  c.rope = sdk::RopeFromMetadata(m, traits->rope_mode, c.head_dim, n_rot);
  // Phi-3 128k's LongRoPE picks per-dimension factors by context length.
  if (m.HasTensor("rope_factors_long.weight") || m.HasTensor("rope_factors_short.weight")) {
    throw sdk::CompileError(ORCD_ERR_UNSUPPORTED,
                            "LongRoPE (rope_factors_long/short) is not supported yet");
  }
  // Routed experts in place of the FFN (qwen3moe).
  if (m.HasTensor("blk.0.ffn_gate_inp.weight")) c.experts = sdk::ReadExpertCounts(m);
  return c;
}

}  // namespace orcd::llama
