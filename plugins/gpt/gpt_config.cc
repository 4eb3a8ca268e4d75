#include "gpt_config.h"

#include <string>

#include "orcd/cpp/rope_config.h"

namespace orcd::gpt {
namespace {

[[noreturn]] void Invalid(const std::string& message) {
  throw sdk::CompileError(ORCD_ERR_MODEL_INVALID, message);
}

void ReadAttentionShape(const sdk::ModelReader& m, GptConfig& c) {
  c.n_embd = m.RequireArchU32("embedding_length");
  c.n_layer = m.RequireArchU32("block_count");
  c.n_head = m.RequireArchU32("attention.head_count");
  c.n_head_kv = m.ArchU32Or("attention.head_count_kv", c.n_head);
  if (c.n_head % c.n_head_kv != 0) {
    Invalid("head_count " + std::to_string(c.n_head) + " is not a multiple of head_count_kv " +
            std::to_string(c.n_head_kv));
  }
  // gpt-oss heads are not n_embd / n_head wide (2880 / 64 = 45, heads are 64).
  const uint32_t default_dim = c.n_embd % c.n_head == 0 ? c.n_embd / c.n_head : 0;
  c.head_dim = m.ArchU32Or("attention.key_length", default_dim);
  if (m.ArchU64Or("attention.value_length", c.head_dim) != c.head_dim) {
    throw sdk::CompileError(ORCD_ERR_UNSUPPORTED, "value_length different from key_length");
  }
}

void ReadGptOss(const sdk::ModelReader& m, GptConfig& c) {
  c.norm_eps = static_cast<float>(m.RequireArchF64("attention.layer_norm_rms_epsilon"));
  const uint32_t n_rot = m.ArchU32Or("rope.dimension_count", c.head_dim);
  if (n_rot > c.head_dim || n_rot % 2 != 0) {
    Invalid("rope.dimension_count " + std::to_string(n_rot) + " must be even and <= head dim");
  }
  c.rope = sdk::RopeFromMetadata(m, ORCD_ROPE_NEOX, c.head_dim, n_rot);
  c.sliding_window = m.RequireArchU32("attention.sliding_window");
  c.n_expert = m.RequireArchU32("expert_count");
  c.n_expert_used = m.RequireArchU32("expert_used_count");
  if (c.n_expert_used > c.n_expert) {
    Invalid("expert_used_count " + std::to_string(c.n_expert_used) + " exceeds expert_count " +
            std::to_string(c.n_expert));
  }
}

}  // namespace

const char* const kArchitectures[] = {"gpt2", "gpt-oss"};
const uint32_t kArchitectureCount = sizeof(kArchitectures) / sizeof(kArchitectures[0]);

GptConfig ReadGptConfig(const sdk::ModelReader& m) {
  GptConfig c;
  if (m.architecture() == "gpt2") {
    c.variant = GptVariant::kGpt2;
  } else if (m.architecture() == "gpt-oss") {
    c.variant = GptVariant::kGptOss;
  } else {
    throw sdk::CompileError(ORCD_ERR_UNSUPPORTED, "architecture '" + m.architecture() +
                                                      "' is not served by the gpt plugin");
  }
  ReadAttentionShape(m, c);
  if (c.variant == GptVariant::kGpt2) {
    c.norm_eps = static_cast<float>(m.RequireArchF64("attention.layer_norm_epsilon"));
    if (c.n_head_kv != c.n_head) Invalid("gpt2 has as many KV heads as heads");
    m.RequireTensor("position_embd.weight");
  } else {
    ReadGptOss(m, c);
  }
  c.output_weight = m.HasTensor("output.weight") ? "output.weight" : "token_embd.weight";
  return c;
}

}  // namespace orcd::gpt
