#include "gpt_config.h"

#include <string>

#include "orcd/cpp/rope_config.h"

namespace orcd::gpt {
namespace {

[[noreturn]] void Invalid(const std::string& message) {
  throw sdk::CompileError(ORCD_ERR_MODEL_INVALID, message);
}

void ReadGptOss(const sdk::ModelReader& m, GptConfig& c) {
  c.norm_eps = static_cast<float>(m.RequireArchF64("attention.layer_norm_rms_epsilon"));
  const uint32_t n_rot = sdk::ReadRopeDims(m, c.head_dim);
  c.rope = sdk::RopeFromMetadata(m, ORCD_ROPE_NEOX, c.head_dim, n_rot);
  c.sliding_window = m.RequireArchU32("attention.sliding_window");
  const sdk::ExpertCounts experts = sdk::ReadExpertCounts(m);
  c.n_expert = experts.n_expert;
  c.n_expert_used = experts.n_expert_used;
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
  static_cast<sdk::DecoderShape&>(c) = sdk::ReadDecoderShape(m);
  if (c.variant == GptVariant::kGpt2) {
    c.norm_eps = static_cast<float>(m.RequireArchF64("attention.layer_norm_epsilon"));
    if (c.n_head_kv != c.n_head) Invalid("gpt2 has as many KV heads as heads");
    m.RequireTensor("position_embd.weight");
  } else {
    ReadGptOss(m, c);
  }
  return c;
}

}  // namespace orcd::gpt
