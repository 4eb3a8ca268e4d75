// The quantization kind of a model file as users name it ("Q4_K_M", "F16";
// "MXFP4" for an MXFP4 MoE file, as the worker spec names it), from
// general.file_type, or from the tensor mix when the key is absent or unknown.
#ifndef ORCD_HOST_GGUF_FILE_TYPE_H_
#define ORCD_HOST_GGUF_FILE_TYPE_H_

#include <string>

#include "host/gguf/gguf_file.h"

namespace orcd {

std::string QuantKind(const GgufFile& file);

}  // namespace orcd

#endif  // ORCD_HOST_GGUF_FILE_TYPE_H_
