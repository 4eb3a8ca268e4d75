#include "host/tokenizer/tokenizer_factory.h"

#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/tokenizer/bpe_tokenizer.h"
#include "host/tokenizer/gguf_vocabulary.h"
#include "host/tokenizer/hf_json_tokenizer.h"
#include "host/tokenizer/pre_tokenizer_table.h"
#include "host/tokenizer/spm_tokenizer.h"

namespace orcd {
namespace {

std::unique_ptr<Tokenizer> CreateGgufBpe(const GgufFile& model, const FamilyTraits* family) {
  const std::optional<std::string_view> pre_name = model.GetString("tokenizer.ggml.pre");
  if (!pre_name) {
    throw Error(ErrorCode::kUnsupported,
                model.source_name() +
                    ": byte-level BPE vocabulary without tokenizer.ggml.pre (known: " +
                    KnownPreTokenizerNames() + ")");
  }
  const PreTokenizerSpec& pre = FindPreTokenizer(*pre_name);
  Vocabulary vocab = LoadGgufVocabulary(model, pre.add_bos, family);

  const std::optional<std::vector<std::string_view>> merge_lines =
      model.GetStringArray("tokenizer.ggml.merges");
  if (!merge_lines) {
    throw Error(ErrorCode::kModelInvalid,
                model.source_name() + ": tokenizer.ggml.merges is missing or not a string array");
  }
  BpeMergeTable merges;
  for (size_t i = 0; i < merge_lines->size(); ++i) {
    const std::string_view line = (*merge_lines)[i];
    const size_t space = line.find(' ', 1);  // byte-level token texts never contain ' '
    if (space == std::string_view::npos) {
      throw Error(ErrorCode::kModelInvalid, model.source_name() + ": tokenizer.ggml.merges[" +
                                                std::to_string(i) + "] = '" + std::string(line) +
                                                "' is not \"left right\"");
    }
    merges.Add(vocab, line.substr(0, space), line.substr(space + 1), static_cast<uint32_t>(i));
  }
  ByteLevelBpeOptions options;
  options.kind = "gguf-bpe";
  options.split_patterns = {std::string(pre.pattern)};
  options.nfc = pre.nfc;
  options.ignore_merges = pre.ignore_merges;
  return std::make_unique<ByteLevelBpeTokenizer>(std::move(vocab), std::move(merges),
                                                 std::move(options));
}

std::unique_ptr<Tokenizer> CreateGgufSpm(const GgufFile& model, const FamilyTraits* family) {
  Vocabulary vocab = LoadGgufVocabulary(model, /*default_add_bos=*/true, family);
  const bool add_space_prefix = model.GetBool("tokenizer.ggml.add_space_prefix").value_or(true);
  return std::make_unique<SpmTokenizer>(std::move(vocab), add_space_prefix);
}

}  // namespace

std::unique_ptr<Tokenizer> CreateGgufTokenizer(const GgufFile& model, const FamilyTraits* family) {
  const std::optional<std::string_view> name = model.GetString("tokenizer.ggml.model");
  if (!name) {
    throw Error(ErrorCode::kModelInvalid, model.source_name() + ": no tokenizer.ggml.model");
  }
  if (*name == "gpt2") return CreateGgufBpe(model, family);
  if (*name == "llama") return CreateGgufSpm(model, family);
  throw Error(ErrorCode::kUnsupported, model.source_name() + ": unknown tokenizer.ggml.model = '" +
                                           std::string(*name) + "' (known: gpt2, llama)");
}

std::unique_ptr<Tokenizer> CreateTokenizer(const GgufFile& model,
                                           const std::filesystem::path& model_path,
                                           const TokenizerSelection& selection) {
  if (selection.tokenizer_json) return LoadHfJsonTokenizer(*selection.tokenizer_json, &model);
  if (selection.use_tokenizer_json_beside_model) {
    const std::filesystem::path beside = model_path.parent_path() / "tokenizer.json";
    if (std::filesystem::is_regular_file(beside)) return LoadHfJsonTokenizer(beside, &model);
  }
  return CreateGgufTokenizer(model, selection.family ? &*selection.family : nullptr);
}

std::unique_ptr<Tokenizer> LoadTokenizer(const std::filesystem::path& model_path,
                                         const TokenizerSelection& selection) {
  const std::unique_ptr<GgufFile> model = GgufFile::Open(model_path);
  return CreateTokenizer(*model, model_path, selection);
}

}  // namespace orcd
