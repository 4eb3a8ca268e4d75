// A tiny byte-level BPE vocabulary written both as a vocab-only GGUF and as a
// HF tokenizer.json, for tests of loading, selection and errors.
//   ids 0..255: the 256 byte-level characters (byte b -> id b)
//   256 "he", 257 "ll", 258 "hell", 259 "hello", 260 "Ġw"
//   261 "<|endoftext|>" (control), 262 "<|im_start|>" (control)
#ifndef ORCD_TESTS_TOKENIZER_TINY_VOCAB_H_
#define ORCD_TESTS_TOKENIZER_TINY_VOCAB_H_

#include <string>
#include <utility>
#include <vector>

#include "host/common/json_escape.h"
#include "host/gguf/gguf_writer.h"

namespace orcd::testing {

struct TinyVocab {
  std::vector<std::string> tokens;
  std::vector<int32_t> types;
  std::vector<std::pair<std::string, std::string>> merges;
  static constexpr int32_t kEndOfText = 261;
  static constexpr int32_t kImStart = 262;
};

TinyVocab MakeTinyVocab();

// tokenizer.ggml.* for `model` / `pre` (bos = eos = <|endoftext|>).
GgufWriter TinyGguf(const std::string& model = "gpt2", const std::string& pre = "gpt-2");

struct TinyJsonOptions {
  bool merges_as_pairs = false;
  std::string normalizer = "null";  // JSON value
  std::string pre_tokenizer =
      R"({"type": "ByteLevel", "add_prefix_space": false, "use_regex": true})";
  std::string model_type = "BPE";
  std::string first_token_text;  // replaces token 0's text when set
};

std::string TinyTokenizerJson(const TinyJsonOptions& options = {});

}  // namespace orcd::testing

#endif  // ORCD_TESTS_TOKENIZER_TINY_VOCAB_H_
