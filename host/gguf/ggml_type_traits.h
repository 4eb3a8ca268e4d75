// Size traits of every ggml tensor type a GGUF file may name. The reader uses
// them to bounds-check tensor data; kernels come from quant plugins (or the
// host for F32/F16/BF16). Adding a format means one row in the table.
#ifndef ORCD_HOST_GGUF_GGML_TYPE_TRAITS_H_
#define ORCD_HOST_GGUF_GGML_TYPE_TRAITS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orcd {

struct GgmlTypeTraits {
  uint32_t id;            // ggml enum value, as stored in GGUF
  std::string_view name;  // ggml's name: "Q4_K", "MXFP4", ...
  uint32_t block_elems;   // elements per block (1 for plain types)
  uint32_t block_bytes;   // bytes per block
};

// Traits of `id`, or nullptr when ggml has no such type (or it was removed).
const GgmlTypeTraits* FindGgmlType(uint32_t id);
const GgmlTypeTraits* FindGgmlTypeByName(std::string_view name);
// "Q4_K", or "type#77" for unknown ids (for messages).
std::string GgmlTypeName(uint32_t id);

// Bytes of a row of `n` elements; nullopt when n is not a multiple of the block
// size or the byte count overflows.
std::optional<uint64_t> GgmlRowBytes(const GgmlTypeTraits& type, uint64_t n);

}  // namespace orcd

#endif  // ORCD_HOST_GGUF_GGML_TYPE_TRAITS_H_
