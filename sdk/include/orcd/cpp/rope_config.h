// Header-only C++ helper for architecture plugins: the ROPE parameter block
// (orcd_op_rope_params) from GGUF metadata, with llama.cpp's key names and
// defaults: <arch>.rope.freq_base (10000), linear scaling from
// rope.scaling.factor (or the older rope.scale_linear), and YaRN when
// rope.scaling.type is "yarn" (ext_factor 1, beta_fast 32, beta_slow 1,
// n_ctx_orig from rope.scaling.original_context_length).
#ifndef ORCD_CPP_ROPE_CONFIG_H_
#define ORCD_CPP_ROPE_CONFIG_H_

#include <cstdint>
#include <string>

#include "orcd/cpp/model_reader.h"
#include "orcd/ops.h"

namespace orcd::sdk {

inline orcd_op_rope_params RopeFromMetadata(const ModelReader& m, orcd_rope_mode mode,
                                            uint32_t head_dim, uint32_t n_rot) {
  orcd_op_rope_params p{};
  p.mode = mode;
  p.head_dim = head_dim;
  p.n_rot = n_rot;
  p.freq_base = static_cast<float>(m.ArchF64Or("rope.freq_base", 10000.0));
  double factor = m.ArchF64Or("rope.scaling.factor", 0.0);
  if (factor == 0.0) factor = m.ArchF64Or("rope.scale_linear", 0.0);
  p.freq_scale = factor == 0.0 ? 1.0f : static_cast<float>(1.0 / factor);
  p.attn_factor = 1.0f;
  const std::string type = m.String(m.ArchKey("rope.scaling.type")).value_or("linear");
  if (type == "yarn") {
    p.ext_factor = 1.0f;
    p.beta_fast = static_cast<float>(m.ArchF64Or("rope.scaling.yarn_beta_fast", 32.0));
    p.beta_slow = static_cast<float>(m.ArchF64Or("rope.scaling.yarn_beta_slow", 1.0));
    p.n_ctx_orig = static_cast<uint32_t>(
        m.ArchU64Or("rope.scaling.original_context_length", m.ArchU64Or("context_length", 0)));
  } else if (type != "linear" && type != "none") {
    throw CompileError(ORCD_ERR_UNSUPPORTED, "rope scaling type '" + type + "' is not supported");
  }
  return p;
}

}  // namespace orcd::sdk

#endif  // ORCD_CPP_ROPE_CONFIG_H_
