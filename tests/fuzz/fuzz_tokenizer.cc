// Fuzz target: the tokenizers on arbitrary bytes, and the streaming
// detokenizer on arbitrary token ids. The first byte picks one of the fixture
// vocabularies (gguf-bpe: gpt-2, qwen2, gpt-oss; gguf-spm: llama, phi-3;
// hf-json: qwen2's tokenizer.json) and the encode flags; the rest is the text.
// The same bytes, read three at a time, are then a stream of token ids.
// Invariants (tokenizer.h, streaming_detokenizer.h): Encode never throws and
// gives ids inside the vocabulary; every string the detokenizer returns is
// valid UTF-8, whatever the ids.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/tokenizer/streaming_detokenizer.h"
#include "host/tokenizer/tokenizer_factory.h"
#include "host/tokenizer/utf8.h"
#include "tests/fuzz/fuzz_support.h"

namespace orcd::fuzz {
namespace {

std::vector<std::unique_ptr<Tokenizer>> LoadTokenizers() {
  const std::filesystem::path vocab = FixturesDir() / "vocab";
  std::vector<std::unique_ptr<Tokenizer>> tokenizers;
  for (const char* name : {"gpt-2", "qwen2", "gpt-oss", "llama-spm", "phi-3"}) {
    const std::filesystem::path path = vocab / (std::string("ggml-vocab-") + name + ".gguf");
    tokenizers.push_back(LoadTokenizer(path, {.use_tokenizer_json_beside_model = false}));
  }
  TokenizerSelection hf_json;
  hf_json.tokenizer_json = vocab / "qwen2-tokenizer.json";
  tokenizers.push_back(LoadTokenizer(vocab / "ggml-vocab-qwen2.gguf", hf_json));
  return tokenizers;
}

const std::vector<std::unique_ptr<Tokenizer>>& Tokenizers() {
  static const auto* tokenizers = new std::vector<std::unique_ptr<Tokenizer>>(LoadTokenizers());
  return *tokenizers;
}

void CheckUtf8(const std::string& text) {
  Check(IsValidUtf8(text), "detokenizer output is valid UTF-8");
}

void Encode(const Tokenizer& tokenizer, std::string_view text, bool add_special,
            bool parse_special) {
  const std::vector<TokenId> ids = tokenizer.Encode(text, add_special, parse_special);
  for (const TokenId id : ids) {
    Check(id >= 0 && static_cast<size_t>(id) < tokenizer.vocab_size(), "ids in the vocabulary");
  }
  CheckUtf8(DecodeTokens(tokenizer, ids));
}

// Ids from three bytes each, some past the vocabulary's end (they must
// render as nothing), streamed with and without special tokens rendered.
void StreamDecode(const Tokenizer& tokenizer, std::string_view bytes, bool render_special) {
  StreamingDetokenizer detokenizer(tokenizer, {.render_special = render_special});
  const uint32_t id_range = static_cast<uint32_t>(tokenizer.vocab_size()) + 16;
  for (size_t at = 0; at + 3 <= bytes.size(); at += 3) {
    const uint32_t raw = static_cast<uint8_t>(bytes[at]) |
                         static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 1])) << 8 |
                         static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 2])) << 16;
    CheckUtf8(detokenizer.Push(static_cast<TokenId>(raw % id_range)));
  }
  CheckUtf8(detokenizer.Flush());
  Check(!detokenizer.holding(), "nothing held after Flush");
}

}  // namespace
}  // namespace orcd::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  orcd::fuzz::Tokenizers();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& tokenizers = orcd::fuzz::Tokenizers();
  const uint8_t selector = data[0];
  const orcd::Tokenizer& tokenizer = *tokenizers[(selector & 0x1f) % tokenizers.size()];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  orcd::fuzz::Encode(tokenizer, text, (selector & 0x20) != 0, (selector & 0x40) != 0);
  orcd::fuzz::StreamDecode(tokenizer, text, (selector & 0x80) != 0);
  return 0;
}
