#include "host/gguf/file_type.h"

#include <map>

#include "host/gguf/ggml_type_traits.h"

namespace orcd {
namespace {

// llama.cpp's enum llama_ftype (the values stored in general.file_type).
const char* FileTypeName(uint64_t ftype) {
  switch (ftype) {
    case 0:
      return "F32";
    case 1:
      return "F16";
    case 2:
      return "Q4_0";
    case 3:
      return "Q4_1";
    case 7:
      return "Q8_0";
    case 8:
      return "Q5_0";
    case 9:
      return "Q5_1";
    case 10:
      return "Q2_K";
    case 11:
      return "Q3_K_S";
    case 12:
      return "Q3_K_M";
    case 13:
      return "Q3_K_L";
    case 14:
      return "Q4_K_S";
    case 15:
      return "Q4_K_M";
    case 16:
      return "Q5_K_S";
    case 17:
      return "Q5_K_M";
    case 18:
      return "Q6_K";
    case 32:
      return "BF16";
    case 38:
      return "MXFP4";  // the spec's name (M0-W-1320); llama.cpp's file type is MXFP4_MOE
    default:
      return nullptr;
  }
}

}  // namespace

std::string QuantKind(const GgufFile& file) {
  if (auto ftype = file.GetU64("general.file_type")) {
    if (const char* name = FileTypeName(*ftype)) return name;
  }
  // The type holding the most bytes of 2-D weights.
  std::map<uint32_t, uint64_t> bytes;
  for (const GgufTensorInfo& t : file.tensors()) {
    if (t.n_dims >= 2) bytes[t.type] += t.n_bytes;
  }
  uint32_t best = 0;
  uint64_t most = 0;
  for (const auto& [type, n] : bytes) {
    if (n > most) {
      most = n;
      best = type;
    }
  }
  return most ? GgmlTypeName(best) : "unknown";
}

}  // namespace orcd
