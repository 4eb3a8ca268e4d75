// Chooses and builds a model's tokenizer:
//   1. hf-json from an explicit tokenizer.json path, if given;
//   2. hf-json from "tokenizer.json" in the model's directory, if present
//      (and allowed);
//   3. otherwise from the GGUF metadata by tokenizer.ggml.model:
//      "gpt2" -> gguf-bpe (pre-tokenizer by tokenizer.ggml.pre),
//      "llama" -> gguf-spm.
// A tokenizer.json must agree with the model's GGUF vocabulary token by token;
// the model's special ids and add-BOS rule apply to it.
#ifndef ORCD_HOST_TOKENIZER_TOKENIZER_FACTORY_H_
#define ORCD_HOST_TOKENIZER_TOKENIZER_FACTORY_H_

#include <filesystem>
#include <memory>
#include <optional>

#include "host/tokenizer/family_traits.h"
#include "host/tokenizer/tokenizer.h"

namespace orcd {

class GgufFile;

struct TokenizerSelection {
  std::optional<std::filesystem::path> tokenizer_json;  // explicit hf-json file
  bool use_tokenizer_json_beside_model = true;
  // The family's vocabulary quirks (FindFamilyTraits), from its plugin.
  std::optional<FamilyTraits> family;
};

// Throws orcd::Error: kUnsupported naming an unknown tokenizer.ggml.model or
// .pre value, kModelInvalid for malformed metadata or a mismatching
// tokenizer.json, kNotFound / kIo for files.
std::unique_ptr<Tokenizer> CreateTokenizer(const GgufFile& model,
                                           const std::filesystem::path& model_path,
                                           const TokenizerSelection& selection = {});

// Step 3 alone: gguf-bpe or gguf-spm from the metadata.
std::unique_ptr<Tokenizer> CreateGgufTokenizer(const GgufFile& model,
                                               const FamilyTraits* family = nullptr);

// Opens the GGUF at `model_path` and calls CreateTokenizer.
std::unique_ptr<Tokenizer> LoadTokenizer(const std::filesystem::path& model_path,
                                         const TokenizerSelection& selection = {});

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_TOKENIZER_FACTORY_H_
