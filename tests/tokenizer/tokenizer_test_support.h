// Fixture access for the tokenizer tests: the upstream vocab test vectors,
// the golden JSON files and cached tokenizers (the large vocabularies take
// a while to load, so each is loaded once per test binary).
#ifndef ORCD_TESTS_TOKENIZER_TOKENIZER_TEST_SUPPORT_H_
#define ORCD_TESTS_TOKENIZER_TOKENIZER_TEST_SUPPORT_H_

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "host/tokenizer/family_traits.h"
#include "host/tokenizer/tokenizer.h"
#include "host/tokenizer/tokenizer_factory.h"

namespace orcd::testing {

std::filesystem::path FixturesDir();

struct VocabVector {
  std::string text;
  std::vector<TokenId> ids;
};

// fixtures/vocab/ggml-vocab-<name>.gguf.inp/.out, every case in order.
std::vector<VocabVector> ReadVocabVectors(const std::string& name);
std::filesystem::path VocabGguf(const std::string& name);

// What the build's architecture plugins declare for `architecture` (chat
// defaults, vocabulary quirks), as the host gets it: the host names no family.
std::optional<FamilyTraits> PluginFamilyTraits(std::string_view architecture);
// A TokenizerSelection carrying the family traits of the GGUF at `model`.
TokenizerSelection SelectionFor(const std::filesystem::path& model);
// LoadTokenizer with SelectionFor(model).
std::unique_ptr<Tokenizer> LoadModelTokenizer(const std::filesystem::path& model);

// gguf-bpe / gguf-spm of fixtures/vocab/ggml-vocab-<name>.gguf with its
// family's traits (cached).
const Tokenizer& VocabTokenizerFor(const std::string& name);
// hf-json of fixtures/vocab/qwen2-tokenizer.json with the qwen2 GGUF's rules (cached).
const Tokenizer& Qwen2HfJsonTokenizer();

// "[1, 2, 3]"
std::string FormatIds(std::span<const TokenId> ids);
// The text with control characters and non-ASCII escaped, for messages.
std::string Printable(const std::string& text);

}  // namespace orcd::testing

#endif  // ORCD_TESTS_TOKENIZER_TOKENIZER_TEST_SUPPORT_H_
