#include "llama_config.h"

#include <string_view>

#include "orcd/cpp/rope_config.h"

namespace orcd::llama {
namespace {

// What differs between the served architectures besides tensor names that
// the plan discovers by presence (fused Q|K|V, fused gate|up, biases, tied
// output): the RoPE pairing.
struct ArchTraits {
  std::string_view name;
  orcd_rope_mode rope_mode;
};

constexpr ArchTraits kTraits[] = {
    {"llama", ORCD_ROPE_NORMAL},
    {"qwen2", ORCD_ROPE_NEOX},
    {"phi3", ORCD_ROPE_NEOX},
};

uint32_t ToU32(uint64_t v, const std::string& key) {
  if (v == 0 || v > UINT32_MAX) {
    throw sdk::CompileError(ORCD_ERR_MODEL_INVALID, key + " is out of range: " + std::to_string(v));
  }
  return static_cast<uint32_t>(v);
}

}  // namespace

const char* const kArchitectures[] = {"llama", "qwen2", "phi3"};
const uint32_t kArchitectureCount = sizeof(kArchitectures) / sizeof(kArchitectures[0]);

LlamaConfig ReadLlamaConfig(const sdk::ModelReader& m) {
  const ArchTraits* traits = nullptr;
  for (const ArchTraits& t : kTraits) {
    if (t.name == m.architecture()) traits = &t;
  }
  if (traits == nullptr) {
    throw sdk::CompileError(ORCD_ERR_UNSUPPORTED, "architecture '" + m.architecture() +
                                                      "' is not served by the llama plugin");
  }
  LlamaConfig c;
  c.arch = m.architecture();
  c.n_embd = ToU32(m.RequireArchU64("embedding_length"), m.ArchKey("embedding_length"));
  c.n_layer = ToU32(m.RequireArchU64("block_count"), m.ArchKey("block_count"));
  c.n_head = ToU32(m.RequireArchU64("attention.head_count"), m.ArchKey("attention.head_count"));
  c.n_head_kv = ToU32(m.ArchU64Or("attention.head_count_kv", c.n_head),
                      m.ArchKey("attention.head_count_kv"));
  if (c.n_head % c.n_head_kv != 0) {
    throw sdk::CompileError(ORCD_ERR_MODEL_INVALID, "head_count " + std::to_string(c.n_head) +
                                                        " is not a multiple of head_count_kv " +
                                                        std::to_string(c.n_head_kv));
  }
  c.head_dim = ToU32(m.ArchU64Or("attention.key_length", c.n_embd / c.n_head),
                     m.ArchKey("attention.key_length"));
  if (m.ArchU64Or("attention.value_length", c.head_dim) != c.head_dim) {
    throw sdk::CompileError(ORCD_ERR_UNSUPPORTED, "value_length different from key_length");
  }
  c.norm_eps = static_cast<float>(m.RequireArchF64("attention.layer_norm_rms_epsilon"));
  const uint32_t n_rot = ToU32(m.ArchU64Or("rope.dimension_count", c.head_dim),
                               m.ArchKey("rope.dimension_count"));
  if (n_rot > c.head_dim || n_rot % 2 != 0) {
    throw sdk::CompileError(ORCD_ERR_MODEL_INVALID, "rope.dimension_count " +
                                                        std::to_string(n_rot) +
                                                        " must be even and <= head dim");
  }
  c.rope = sdk::RopeFromMetadata(m, traits->rope_mode, c.head_dim, n_rot);
  // Phi-3 128k's LongRoPE picks per-dimension factors by context length.
  if (m.HasTensor("rope_factors_long.weight") || m.HasTensor("rope_factors_short.weight")) {
    throw sdk::CompileError(ORCD_ERR_UNSUPPORTED, "LongRoPE (rope_factors_long/short) is not supported yet");
  }
  c.output_weight = m.HasTensor("output.weight") ? "output.weight" : "token_embd.weight";
  return c;
}

}  // namespace orcd::llama
