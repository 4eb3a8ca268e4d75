#include "tokenizer_test_support.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "host/gguf/gguf_file.h"
#include "host/plugins/host_services.h"
#include "host/plugins/plugin_registry.h"
#include "host/tokenizer/hf_json_tokenizer.h"
#include "host/tokenizer/tokenizer_factory.h"

namespace orcd::testing {
namespace {

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> SplitOn(const std::string& text, const std::string& separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at; (at = text.find(separator, start)) != std::string::npos;
       start = at + separator.size()) {
    parts.push_back(text.substr(start, at - start));
  }
  parts.push_back(text.substr(start));
  return parts;
}

}  // namespace

std::filesystem::path FixturesDir() { return ORCD_FIXTURES_DIR; }

std::filesystem::path VocabGguf(const std::string& name) {
  return FixturesDir() / "vocab" / ("ggml-vocab-" + name + ".gguf");
}

std::vector<VocabVector> ReadVocabVectors(const std::string& name) {
  const std::filesystem::path base = VocabGguf(name);
  std::vector<std::string> inputs =
      SplitOn(ReadText(base.string() + ".inp"), "\n__ggml_vocab_test__\n");
  std::vector<std::string> outputs = SplitOn(ReadText(base.string() + ".out"), "\n");
  // Both files end with a separator: the last piece is not a case.
  inputs.pop_back();
  outputs.pop_back();
  if (inputs.size() != outputs.size()) {
    throw std::runtime_error(name + ": " + std::to_string(inputs.size()) + " inputs but " +
                             std::to_string(outputs.size()) + " outputs");
  }
  std::vector<VocabVector> vectors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    VocabVector v{inputs[i], {}};
    std::istringstream ids(outputs[i]);
    for (long id; ids >> id;) v.ids.push_back(static_cast<TokenId>(id));
    vectors.push_back(std::move(v));
  }
  return vectors;
}

std::optional<FamilyTraits> PluginFamilyTraits(std::string_view architecture) {
  static const PluginRegistry* registry = [] {
    auto* r = new PluginRegistry(HostServices());
    r->LoadDirectories({ORCD_PLUGIN_DIR});
    return r;
  }();
  return FindFamilyTraits(*registry, architecture);
}

TokenizerSelection SelectionFor(const std::filesystem::path& model) {
  TokenizerSelection selection;
  selection.family = PluginFamilyTraits(GgufFile::Open(model)->architecture());
  return selection;
}

std::unique_ptr<Tokenizer> LoadModelTokenizer(const std::filesystem::path& model) {
  return LoadTokenizer(model, SelectionFor(model));
}

const Tokenizer& VocabTokenizerFor(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Tokenizer>> cache;
  const std::lock_guard lock(mutex);
  std::unique_ptr<Tokenizer>& slot = cache[name];
  if (!slot) {
    const std::unique_ptr<GgufFile> gguf = GgufFile::Open(VocabGguf(name));
    const std::optional<FamilyTraits> family = PluginFamilyTraits(gguf->architecture());
    slot = CreateGgufTokenizer(*gguf, family ? &*family : nullptr);
  }
  return *slot;
}

const Tokenizer& Qwen2HfJsonTokenizer() {
  static const std::unique_ptr<Tokenizer> tokenizer = LoadHfJsonTokenizer(
      FixturesDir() / "vocab" / "qwen2-tokenizer.json", GgufFile::Open(VocabGguf("qwen2")).get());
  return *tokenizer;
}

std::string FormatIds(std::span<const TokenId> ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(ids[i]);
  }
  return out + "]";
}

std::string Printable(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7F && c != '\\') {
      out += c;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", b);
      out += buf;
    }
  }
  return out;
}

}  // namespace orcd::testing
