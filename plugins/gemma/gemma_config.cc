#include "gemma_config.h"

#include <cmath>
#include <string_view>

#include "orcd/cpp/rope_config.h"

namespace orcd::gemma {
namespace {

// What differs between the generations, as llama.cpp's gemma2 and gemma3
// graphs have it.
struct ArchTraits {
  std::string_view name;
  uint32_t swa_period;         // every swa_period-th layer attends globally
  bool soft_caps;              // attention and final logit soft-capping
  uint32_t full_scale_layers;  // the 27B's depth: q scaled by n_embd / n_head, not head_dim
  bool local_rope_base;        // local layers use rope.freq_base_swa, unscaled
};

constexpr ArchTraits kTraits[] = {
    {"gemma2", 2, true, 46, false},
    {"gemma3", 6, false, 62, true},
};

// Gemma 2's caps when the file does not state them (llama.cpp's defaults).
constexpr double kDefaultAttentionSoftcap = 50.0;
constexpr double kDefaultFinalSoftcap = 30.0;
constexpr double kDefaultLocalRopeBase = 10000.0;

}  // namespace

const char* const kArchitectures[] = {"gemma2", "gemma3"};
const uint32_t kArchitectureCount = sizeof(kArchitectures) / sizeof(kArchitectures[0]);

GemmaConfig ReadGemmaConfig(const sdk::ModelReader& m) {
  const ArchTraits* traits = &sdk::ArchTraitsFor(kTraits, m, "gemma");
  GemmaConfig c;
  static_cast<sdk::DecoderShape&>(c) = sdk::ReadDecoderShape(m);
  c.norm_eps = static_cast<float>(m.RequireArchF64("attention.layer_norm_rms_epsilon"));
  c.embedding_scale = std::sqrt(static_cast<float>(c.n_embd));
  // Gemma's query_pre_attn_scalar: head_dim, except the 27B models' n_embd / n_head.
  const uint32_t scale_dim =
      c.n_layer == traits->full_scale_layers && c.n_head > 0 ? c.n_embd / c.n_head : c.head_dim;
  c.attention_scale = 1.0f / std::sqrt(static_cast<float>(scale_dim));
  if (traits->soft_caps) {
    c.attention_softcap =
        static_cast<float>(m.ArchF64Or("attn_logit_softcapping", kDefaultAttentionSoftcap));
    c.final_softcap =
        static_cast<float>(m.ArchF64Or("final_logit_softcapping", kDefaultFinalSoftcap));
  }
  c.qk_norm = m.HasTensor(sdk::LayerTensor(0, "attn_q_norm.weight"));
  c.sliding_window = m.RequireArchU32("attention.sliding_window");
  c.swa_period = traits->swa_period;
  const uint32_t n_rot = sdk::ReadRopeDims(m, c.head_dim);
  c.rope_global = sdk::RopeFromMetadata(m, ORCD_ROPE_NEOX, c.head_dim, n_rot);
  c.rope_local = c.rope_global;
  if (traits->local_rope_base) {
    c.rope_local.freq_base =
        static_cast<float>(m.ArchF64Or("rope.freq_base_swa", kDefaultLocalRopeBase));
    c.rope_local.freq_scale = 1.0f;
    c.rope_local.ext_factor = 0.0f;
  }
  return c;
}

}  // namespace orcd::gemma
