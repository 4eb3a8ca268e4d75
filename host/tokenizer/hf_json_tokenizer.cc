#include "host/tokenizer/hf_json_tokenizer.h"

#include <fstream>
#include <optional>
#include <sstream>

#include <Poco/Dynamic/Var.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/tokenizer/bpe_tokenizer.h"
#include "host/tokenizer/gguf_vocabulary.h"
#include "host/tokenizer/hf_json_spec.h"
#include "host/tokenizer/pre_tokenizer_table.h"

namespace orcd {
namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(std::filesystem::exists(path) ? ErrorCode::kIo : ErrorCode::kNotFound,
                "cannot read tokenizer file " + path.string());
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Token id -> text over model.vocab and added_tokens; ids no entry names are
// unused padding. Added tokens override a vocab entry with the same id.
Vocabulary BuildVocabulary(const HfTokenizerSpec& spec, const std::string& source) {
  size_t size = 0;
  const auto grow = [&](TokenId id, std::string_view text) {
    if (id < 0)
      throw Error(ErrorCode::kModelInvalid,
                  source + ": negative id for '" + std::string(text) + "'");
    size = std::max(size, static_cast<size_t>(id) + 1);
  };
  for (const auto& [id, text] : spec.vocab) grow(id, text);
  for (const HfAddedToken& t : spec.added_tokens) grow(t.id, t.content);
  std::vector<std::string> texts(size);
  std::vector<TokenType> types(size, TokenType::kUnused);
  for (const auto& [id, text] : spec.vocab) {
    texts[static_cast<size_t>(id)] = text;
    types[static_cast<size_t>(id)] = TokenType::kNormal;
  }
  for (const HfAddedToken& t : spec.added_tokens) {
    texts[static_cast<size_t>(t.id)] = t.content;
    types[static_cast<size_t>(t.id)] = t.special ? TokenType::kControl : TokenType::kUserDefined;
  }
  Vocabulary vocab(std::move(texts), std::move(types), {});
  for (const HfAddedToken& t : spec.added_tokens) vocab.SetStrip(t.id, t.lstrip, t.rstrip);
  return vocab;
}

// Every token of the file has the same text in the model's GGUF vocabulary.
void CheckAgainstModel(const Vocabulary& vocab, const GgufFile& model, const std::string& source) {
  const std::optional<std::vector<std::string_view>> tokens =
      model.GetStringArray("tokenizer.ggml.tokens");
  if (!tokens) return;
  if (vocab.size() > tokens->size()) {
    throw Error(ErrorCode::kModelInvalid, source + " has " + std::to_string(vocab.size()) +
                                              " tokens but the model's vocabulary only " +
                                              std::to_string(tokens->size()));
  }
  for (size_t i = 0; i < vocab.size(); ++i) {
    const auto id = static_cast<TokenId>(i);
    if (vocab.type(id) != TokenType::kUnused && vocab.text(id) != (*tokens)[i]) {
      throw Error(ErrorCode::kModelInvalid,
                  source + ": token " + std::to_string(i) + " is '" + std::string(vocab.text(id)) +
                      "' but '" + std::string((*tokens)[i]) + "' in " + model.source_name() +
                      ": the tokenizer does not belong to this model");
    }
  }
}

// A special token named in tokenizer_config.json: "text" or {"content": "text"}.
TokenId ConfigToken(const Poco::JSON::Object::Ptr& config, const std::string& key,
                    const Vocabulary& vocab) {
  Poco::Dynamic::Var v = config->get(key);
  if (v.type() == typeid(Poco::JSON::Object::Ptr))
    v = v.extract<Poco::JSON::Object::Ptr>()->get("content");
  return v.isString() ? vocab.Find(v.extract<std::string>()) : kNoToken;
}

// Special ids and add-BOS/EOS from tokenizer_config.json beside the file.
void ApplyTokenizerConfig(const std::filesystem::path& path, Vocabulary& vocab) {
  const std::filesystem::path config_path = path.parent_path() / "tokenizer_config.json";
  if (!std::filesystem::exists(config_path)) {
    vocab.SetSpecialIds({}, path.string());
    return;
  }
  Poco::JSON::Object::Ptr config;
  try {
    Poco::JSON::Parser parser;
    config = parser.parse(ReadFile(config_path)).extract<Poco::JSON::Object::Ptr>();
  } catch (const Poco::Exception& e) {
    throw Error(ErrorCode::kModelInvalid, config_path.string() + ": " + e.displayText());
  }
  SpecialTokenIds ids;
  ids.bos = ConfigToken(config, "bos_token", vocab);
  ids.eos = ConfigToken(config, "eos_token", vocab);
  ids.pad = ConfigToken(config, "pad_token", vocab);
  ids.unk = ConfigToken(config, "unk_token", vocab);
  vocab.SetSpecialIds(ids, config_path.string());
  const auto flag = [&](const char* key) {
    const Poco::Dynamic::Var v = config->get(key);
    return v.type() == typeid(bool) && v.extract<bool>();
  };
  vocab.SetAddSpecial(flag("add_bos_token"), flag("add_eos_token"));
}

void ApplyModelSpecials(const GgufFile& model, Vocabulary& vocab) {
  const PreTokenizerSpec* pre =
      TryFindPreTokenizer(model.GetString("tokenizer.ggml.pre").value_or(""));
  ApplyGgufSpecials(model, pre != nullptr && pre->add_bos, vocab);
}

}  // namespace

std::unique_ptr<Tokenizer> LoadHfJsonTokenizer(const std::filesystem::path& path,
                                               const GgufFile* model) {
  const std::string source = path.string();
  HfTokenizerSpec spec = ParseHfTokenizerJson(ReadFile(path), source);
  Vocabulary vocab = BuildVocabulary(spec, source);
  if (model != nullptr) {
    CheckAgainstModel(vocab, *model, source);
    ApplyModelSpecials(*model, vocab);
  } else {
    ApplyTokenizerConfig(path, vocab);
  }
  BpeMergeTable merges;
  for (size_t i = 0; i < spec.merges.size(); ++i) {
    merges.Add(vocab, spec.merges[i].first, spec.merges[i].second, static_cast<uint32_t>(i));
  }
  ByteLevelBpeOptions options;
  options.kind = "hf-json";
  options.split_patterns = std::move(spec.split_patterns);
  options.nfc = spec.nfc;
  options.ignore_merges = spec.ignore_merges;
  options.add_prefix_space = spec.add_prefix_space;
  return std::make_unique<ByteLevelBpeTokenizer>(std::move(vocab), std::move(merges),
                                                 std::move(options));
}

}  // namespace orcd
