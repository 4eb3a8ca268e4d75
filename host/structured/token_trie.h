// A vocabulary's tokens by their bytes, in a trie, built once per model:
// constrained decoding walks it with a GrammarMatcher so that tokens
// sharing a prefix share its matching, and a prefix the grammar refuses
// prunes every token under it.
#ifndef ORCD_HOST_STRUCTURED_TOKEN_TRIE_H_
#define ORCD_HOST_STRUCTURED_TOKEN_TRIE_H_

#include <bitset>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "host/tokenizer/tokenizer.h"

namespace orcd::structured {

// A reader of JSON-string text (well-formed UTF-8 without '"', '\\' and
// control characters): where a byte leads from each state, kBad where it is
// not text. States: at a character boundary, or inside a character with the
// byte ranges still allowed (Unicode's table 3-7).
enum Utf8State : uint8_t {
  kBoundary,
  kNeed1,
  kNeed2,
  kAfterE0,
  kAfterED,
  kNeed3,
  kAfterF0,
  kAfterF4,
  kBad
};
constexpr int kUtf8States = 8;

constexpr Utf8State NextText(Utf8State s, uint8_t b) {
  const auto in = [b](int lo, int hi) { return b >= lo && b <= hi; };
  switch (s) {
    case kBoundary:
      if (in(0x20, 0x7F)) return b == '"' || b == '\\' ? kBad : kBoundary;
      if (in(0xC2, 0xDF)) return kNeed1;
      if (b == 0xE0) return kAfterE0;
      if (b == 0xED) return kAfterED;
      if (in(0xE1, 0xEF)) return kNeed2;
      if (b == 0xF0) return kAfterF0;
      if (in(0xF1, 0xF3)) return kNeed3;
      if (b == 0xF4) return kAfterF4;
      return kBad;
    case kNeed1:
      return in(0x80, 0xBF) ? kBoundary : kBad;
    case kNeed2:
      return in(0x80, 0xBF) ? kNeed1 : kBad;
    case kAfterE0:
      return in(0xA0, 0xBF) ? kNeed1 : kBad;
    case kAfterED:
      return in(0x80, 0x9F) ? kNeed1 : kBad;
    case kNeed3:
      return in(0x80, 0xBF) ? kNeed2 : kBad;
    case kAfterF0:
      return in(0x90, 0xBF) ? kNeed2 : kBad;
    case kAfterF4:
      return in(0x80, 0x8F) ? kNeed2 : kBad;
    default:
      return kBad;
  }
}

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
  // Node i's parent (the root's: itself) and the byte that leads from it to
  // i (not the root): nodes are made with their links, link c leading to
  // node c + 1.
  uint32_t parent(uint32_t i) const { return parents_[i]; }
  uint8_t byte_in(uint32_t i) const { return child_bytes_[i - 1]; }
  uint8_t child_byte(uint32_t c) const { return child_bytes_[c]; }
  uint32_t child_node(uint32_t c) const { return child_nodes_[c]; }
  std::span<const TokenId> tokens(const Node& n) const {
    return {tokens_.data() + n.first_token, n.tokens};
  }
  // Tokens of the subtree of node i (its own and every one below it).
  std::span<const TokenId> subtree_tokens(uint32_t i) const {
    return {dfs_tokens_.data() + dfs_first_[i], dfs_end_[i] - dfs_first_[i]};
  }
  // Whether every token below node i continues it, read from text state
  // `from`, with JSON-string text (NextText; a token may end inside a
  // character).
  // A grammar state that every text character leads back to takes all of
  // them without a walk.
  bool text_below(uint32_t i, Utf8State from = kBoundary) const {
    return (text_below_[i] >> from) & 1u;
  }
  // Whether a byte of `set` (ASCII) appears below node i.
  bool ascii_below(uint32_t i, const std::bitset<128>& set) const {
    return (ascii_below_[i] & set).any();
  }
  // Text runs: the trie read as JSON-string text, a run beginning at the
  // root and after every byte that is not text (a quote that opens a
  // string), at a character boundary. A state whose every text character
  // leads to the next of a chain of such states (inside a string) takes a
  // run's tokens at once and asks the grammar only where a quote or a
  // backslash ends the run.
  struct RunExit {
    uint32_t child;  // the node after the byte
    uint8_t byte;    // '"' or '\\', at a character boundary
    uint16_t chars;  // whole characters from the run's start to it
  };
  // The reader's state at node i in its run.
  Utf8State run_state(uint32_t i) const { return static_cast<Utf8State>(run_state_[i]); }
  // Whole characters from i's run start to i (saturating).
  uint16_t run_chars(uint32_t i) const { return run_chars_[i]; }
  // The most characters (one begun counts whole) from i's run start to any
  // node below i in the run (saturating).
  uint16_t run_chars_end(uint32_t i) const { return run_chars_end_[i]; }
  // The tokens below i (i's own too) whose bytes from i are all text.
  std::span<const TokenId> run_tokens(uint32_t i) const {
    return {run_tokens_.data() + run_first_token_[i], run_end_token_[i] - run_first_token_[i]};
  }
  // run_tokens(kRoot) as bits by token id (a text state at the root takes
  // most of the vocabulary: one OR of words instead of a bit a token).
  const std::vector<uint64_t>& root_run_bits() const { return root_run_bits_; }
  // Where the run below i meets a '"' or a '\\' at a character boundary.
  std::span<const RunExit> run_exits(uint32_t i) const {
    return {run_exits_.data() + run_first_exit_[i], run_end_exit_[i] - run_first_exit_[i]};
  }
  size_t vocab_size() const { return vocab_size_; }
  // `text` spelled by the longest token at each place (empty when a byte
  // has no token): one tokenization of many, for tests and benchmarks.
  std::vector<TokenId> LongestFirst(std::string_view text) const;
  // The control token whose text is `text` (e.g. "<|channel|>"), or -1.
  TokenId control_token(std::string_view text) const {
    const auto it = control_tokens_.find(std::string(text));
    return it == control_tokens_.end() ? -1 : it->second;
  }
  // A token's bytes ("" for tokens outside the trie).
  const std::string& piece(TokenId id) const {
    static const std::string kNone;
    return id >= 0 && static_cast<size_t>(id) < pieces_.size() ? pieces_[static_cast<size_t>(id)]
                                                               : kNone;
  }
  const std::vector<TokenId>& end_ids() const { return end_ids_; }
  size_t nodes() const { return nodes_.size(); }

 private:
  // The depth-first token order and text_below, from the built trie.
  void IndexSubtrees();
  // The text runs (run_state and the rest).
  void IndexTextRuns();

  std::vector<Node> nodes_;
  std::vector<uint8_t> child_bytes_;
  std::vector<uint32_t> child_nodes_;  // child c of a node: child_bytes_[c], child_nodes_[c]
  std::vector<uint32_t> parents_;
  std::vector<TokenId> tokens_;
  std::vector<TokenId> dfs_tokens_;  // tokens in depth-first order: subtrees contiguous
  std::vector<uint32_t> dfs_first_, dfs_end_;
  std::vector<std::bitset<128>> ascii_below_;
  std::vector<uint8_t> text_below_;  // bit s: text_below(i, s)
  std::vector<uint8_t> run_state_;
  std::vector<uint16_t> run_chars_, run_chars_end_;
  std::vector<TokenId> run_tokens_;  // each run depth first: a node's run tokens contiguous
  std::vector<uint32_t> run_first_token_, run_end_token_;
  std::vector<RunExit> run_exits_;
  std::vector<uint64_t> root_run_bits_;
  std::vector<uint32_t> run_first_exit_, run_end_exit_;
  std::vector<std::string> pieces_;
  std::map<std::string, TokenId> control_tokens_;
  std::vector<TokenId> end_ids_;
  size_t vocab_size_ = 0;
};

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_TOKEN_TRIE_H_
