// The parts of a HF tokenizer.json that orcd uses, parsed and checked (see
// hf_json_tokenizer.h for what is supported).
#ifndef ORCD_HOST_TOKENIZER_HF_JSON_SPEC_H_
#define ORCD_HOST_TOKENIZER_HF_JSON_SPEC_H_

#include <string>
#include <utility>
#include <vector>

#include "host/tokenizer/tokenizer.h"

namespace orcd {

struct HfAddedToken {
  TokenId id = kNoToken;
  std::string content;
  bool special = false;
  bool lstrip = false;
  bool rstrip = false;
};

struct HfTokenizerSpec {
  std::vector<std::pair<TokenId, std::string>> vocab;       // model.vocab
  std::vector<std::pair<std::string, std::string>> merges;  // in priority order
  std::vector<HfAddedToken> added_tokens;
  bool ignore_merges = false;
  bool nfc = false;
  std::vector<std::string> split_patterns;  // Split steps, then ByteLevel's own regex
  bool add_prefix_space = false;
};

// Parses JSON text. `source` names the file in errors. Throws
// orcd::Error(kModelInvalid) for malformed JSON or fields,
// orcd::Error(kUnsupported) naming a component orcd does not implement.
HfTokenizerSpec ParseHfTokenizerJson(const std::string& json_text, const std::string& source);

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_HF_JSON_SPEC_H_
