// A vocabulary's tokens by their bytes, in a trie, built once per model:
// constrained decoding walks it with a GrammarMatcher so that tokens
// sharing a prefix share its matching, and a prefix the grammar refuses
// prunes every token under it.
#ifndef ORCD_HOST_STRUCTURED_TOKEN_TRIE_H_
#define ORCD_HOST_STRUCTURED_TOKEN_TRIE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "host/tokenizer/tokenizer.h"

namespace orcd::structured {

class TokenTrie {
 public:
  // Every token with text (normal, user-defined and byte tokens); control,
  // unknown and unused tokens are never part of constrained output.
  explicit TokenTrie(const Tokenizer& tokenizer);

  struct Node {
    uint32_t first_child = 0, children = 0;
    uint32_t first_token = 0, tokens = 0;  // the tokens whose bytes end here
  };
  static constexpr uint32_t kRoot = 0;
  const Node& node(uint32_t i) const { return nodes_[i]; }
  uint8_t child_byte(uint32_t c) const { return child_bytes_[c]; }
  uint32_t child_node(uint32_t c) const { return child_nodes_[c]; }
  std::span<const TokenId> tokens(const Node& n) const {
    return {tokens_.data() + n.first_token, n.tokens};
  }
  size_t vocab_size() const { return vocab_size_; }
  // A token's bytes ("" for tokens outside the trie).
  const std::string& piece(TokenId id) const {
    static const std::string kNone;
    return id >= 0 && static_cast<size_t>(id) < pieces_.size() ? pieces_[static_cast<size_t>(id)]
                                                               : kNone;
  }
  const std::vector<TokenId>& end_ids() const { return end_ids_; }
  size_t nodes() const { return nodes_.size(); }

 private:
  std::vector<Node> nodes_;
  std::vector<uint8_t> child_bytes_;
  std::vector<uint32_t> child_nodes_;  // child c of a node: child_bytes_[c], child_nodes_[c]
  std::vector<TokenId> tokens_;
  std::vector<std::string> pieces_;
  std::vector<TokenId> end_ids_;
  size_t vocab_size_ = 0;
};

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_TOKEN_TRIE_H_
