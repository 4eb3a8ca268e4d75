#include "tiny_vocab.h"

#include <cstdio>

#include "host/tokenizer/byte_level.h"

namespace orcd::testing {

TinyVocab MakeTinyVocab() {
  TinyVocab v;
  for (unsigned b = 0; b < 256; ++b) {
    v.tokens.emplace_back(ByteLevelChar(static_cast<unsigned char>(b)));
    v.types.push_back(1);
  }
  for (const char* t : {"he", "ll", "hell", "hello", "\xC4\xA0w"}) {  // "Ġw"
    v.tokens.emplace_back(t);
    v.types.push_back(1);
  }
  for (const char* t : {"<|endoftext|>", "<|im_start|>"}) {
    v.tokens.emplace_back(t);
    v.types.push_back(3);
  }
  v.merges = {{"h", "e"}, {"l", "l"}, {"he", "ll"}, {"hell", "o"}, {"\xC4\xA0", "w"}};
  return v;
}

GgufWriter TinyGguf(const std::string& model, const std::string& pre) {
  const TinyVocab v = MakeTinyVocab();
  GgufWriter w;
  w.SetString("general.architecture", "gpt2");
  w.SetString("tokenizer.ggml.model", model);
  w.SetString("tokenizer.ggml.pre", pre);
  w.SetStringArray("tokenizer.ggml.tokens", v.tokens);
  w.SetI32Array("tokenizer.ggml.token_type", v.types);
  std::vector<std::string> merges;
  for (const auto& [l, r] : v.merges) merges.push_back(l + " " + r);
  w.SetStringArray("tokenizer.ggml.merges", merges);
  w.SetU32("tokenizer.ggml.bos_token_id", TinyVocab::kEndOfText);
  w.SetU32("tokenizer.ggml.eos_token_id", TinyVocab::kEndOfText);
  return w;
}

std::string TinyTokenizerJson(const TinyJsonOptions& options) {
  const TinyVocab v = MakeTinyVocab();
  std::string vocab;
  std::string added;
  for (size_t id = 0; id < v.tokens.size(); ++id) {
    const std::string text =
        id == 0 && !options.first_token_text.empty() ? options.first_token_text : v.tokens[id];
    if (v.types[id] == 3) {
      added += std::string(added.empty() ? "" : ", ") + "{\"id\": " + std::to_string(id) +
               ", \"content\": " + JsonQuote(text) +
               ", \"single_word\": false, \"lstrip\": false, \"rstrip\": false, "
               "\"normalized\": false, \"special\": true}";
    } else {
      vocab += std::string(vocab.empty() ? "" : ", ") + JsonQuote(text) + ": " + std::to_string(id);
    }
  }
  std::string merges;
  for (const auto& [l, r] : v.merges) {
    merges += merges.empty() ? "" : ", ";
    merges += options.merges_as_pairs ? "[" + JsonQuote(l) + ", " + JsonQuote(r) + "]"
                                      : JsonQuote(l + " " + r);
  }
  return "{\"version\": \"1.0\", \"added_tokens\": [" + added +
         "], \"normalizer\": " + options.normalizer +
         ", \"pre_tokenizer\": " + options.pre_tokenizer +
         ", \"decoder\": {\"type\": \"ByteLevel\"}, \"model\": {\"type\": " +
         JsonQuote(options.model_type) + ", \"vocab\": {" + vocab + "}, \"merges\": [" + merges +
         "]}}";
}

}  // namespace orcd::testing
