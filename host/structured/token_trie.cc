#include "host/structured/token_trie.h"

#include <algorithm>
#include <string>
#include <utility>

namespace orcd::structured {

TokenTrie::TokenTrie(const Tokenizer& tokenizer)
    : end_ids_(tokenizer.end_of_generation_ids()), vocab_size_(tokenizer.vocab_size()) {
  std::vector<std::pair<std::string, TokenId>> pieces;
  pieces_.resize(vocab_size_);
  for (size_t i = 0; i < vocab_size_; ++i) {
    const auto id = static_cast<TokenId>(i);
    const TokenType type = tokenizer.token_type(id);
    if (type == TokenType::kControl) {
      control_tokens_.emplace(tokenizer.TokenToPiece(id), id);  // the first of a text keeps it
      continue;
    }
    if (type != TokenType::kNormal && type != TokenType::kUserDefined && type != TokenType::kByte)
      continue;
    std::string piece = tokenizer.TokenToPiece(id);
    if (piece.empty()) continue;
    pieces_[i] = piece;
    pieces.emplace_back(std::move(piece), id);
  }
  std::sort(pieces.begin(), pieces.end());
  // Breadth-first over ranges of the sorted pieces that share `depth` bytes,
  // so that each node's children are contiguous.
  struct Pending {
    uint32_t node;
    size_t begin, end, depth;
  };
  nodes_.emplace_back();
  parents_.push_back(kRoot);
  std::vector<Pending> queue = {{kRoot, 0, pieces.size(), 0}};
  for (size_t q = 0; q < queue.size(); ++q) {
    const Pending p = queue[q];
    size_t i = p.begin;
    Node& node = nodes_[p.node];
    node.first_token = static_cast<uint32_t>(tokens_.size());
    for (; i < p.end && pieces[i].first.size() == p.depth; ++i) tokens_.push_back(pieces[i].second);
    node.tokens = static_cast<uint32_t>(tokens_.size()) - node.first_token;
    node.first_child = static_cast<uint32_t>(child_bytes_.size());
    while (i < p.end) {
      const auto byte = static_cast<uint8_t>(pieces[i].first[p.depth]);
      size_t j = i;
      while (j < p.end && static_cast<uint8_t>(pieces[j].first[p.depth]) == byte) ++j;
      const auto child = static_cast<uint32_t>(nodes_.size());
      nodes_.emplace_back();
      child_bytes_.push_back(byte);
      child_nodes_.push_back(child);
      parents_.push_back(p.node);
      queue.push_back({child, i, j, p.depth + 1});
      i = j;
    }
    nodes_[p.node].children =
        static_cast<uint32_t>(child_bytes_.size()) - nodes_[p.node].first_child;
  }
  IndexSubtrees();
  IndexTextRuns();
}

void TokenTrie::IndexTextRuns() {
  const size_t n = nodes_.size();
  constexpr uint32_t kMaxChars = UINT16_MAX;
  // States and character counts: parents come before children.
  run_state_.assign(n, kBoundary);
  std::vector<uint32_t> chars(n, 0);
  std::vector<bool> starts(n, false);  // a run begins here
  starts[kRoot] = true;
  for (uint32_t i = 0; i < n; ++i) {
    const Node& nd = nodes_[i];
    for (uint32_t c = nd.first_child; c < nd.first_child + nd.children; ++c) {
      const uint32_t child = child_nodes_[c];
      const Utf8State t = NextText(run_state(i), child_bytes_[c]);
      if (t == kBad) {
        starts[child] = true;  // run_state kBoundary, no characters
        continue;
      }
      run_state_[child] = t;
      chars[child] = std::min(kMaxChars, chars[i] + (t == kBoundary ? 1u : 0u));
    }
  }
  run_chars_.assign(n, 0);
  run_chars_end_.assign(n, 0);
  for (size_t i = n; i-- > 0;) {
    run_chars_[i] = static_cast<uint16_t>(chars[i]);
    uint32_t end =
        std::min(kMaxChars, chars[i] + (run_state(static_cast<uint32_t>(i)) != kBoundary));
    const Node& nd = nodes_[i];
    for (uint32_t c = nd.first_child; c < nd.first_child + nd.children; ++c) {
      if (!starts[child_nodes_[c]]) end = std::max<uint32_t>(end, run_chars_end_[child_nodes_[c]]);
    }
    run_chars_end_[i] = static_cast<uint16_t>(end);
  }
  // Each run depth first (an explicit stack), its tokens and exits in that
  // order, so that a node's are contiguous.
  run_first_token_.assign(n, 0);
  run_end_token_.assign(n, 0);
  run_first_exit_.assign(n, 0);
  run_end_exit_.assign(n, 0);
  std::vector<std::pair<uint32_t, bool>> stack;
  for (uint32_t start = 0; start < n; ++start) {
    if (!starts[start]) continue;
    stack.push_back({start, false});
    while (!stack.empty()) {
      const auto [node, done] = stack.back();
      stack.pop_back();
      if (done) {
        run_end_token_[node] = static_cast<uint32_t>(run_tokens_.size());
        run_end_exit_[node] = static_cast<uint32_t>(run_exits_.size());
        continue;
      }
      run_first_token_[node] = static_cast<uint32_t>(run_tokens_.size());
      run_first_exit_[node] = static_cast<uint32_t>(run_exits_.size());
      for (const TokenId id : tokens(nodes_[node])) run_tokens_.push_back(id);
      stack.push_back({node, true});
      const Node& nd = nodes_[node];
      for (uint32_t c = nd.first_child + nd.children; c-- > nd.first_child;) {
        const uint32_t child = child_nodes_[c];
        const uint8_t byte = child_bytes_[c];
        if (!starts[child]) {
          stack.push_back({child, false});
        } else if ((byte == '"' || byte == '\\') && run_state(node) == kBoundary) {
          run_exits_.push_back({child, byte, run_chars_[node]});
        }
      }
    }
  }
  root_run_bits_.assign((vocab_size_ + 63) / 64, 0);
  for (const TokenId id : run_tokens(kRoot))
    root_run_bits_[static_cast<size_t>(id) / 64] |= uint64_t{1} << (static_cast<size_t>(id) % 64);
}

void TokenTrie::IndexSubtrees() {
  const size_t n = nodes_.size();
  // Depth first (an explicit stack): each subtree's tokens contiguous.
  dfs_first_.assign(n, 0);
  dfs_end_.assign(n, 0);
  dfs_tokens_.reserve(tokens_.size());
  std::vector<std::pair<uint32_t, bool>> stack = {{kRoot, false}};
  while (!stack.empty()) {
    const auto [node, done] = stack.back();
    stack.pop_back();
    if (done) {
      dfs_end_[node] = static_cast<uint32_t>(dfs_tokens_.size());
      continue;
    }
    dfs_first_[node] = static_cast<uint32_t>(dfs_tokens_.size());
    for (const TokenId id : tokens(nodes_[node])) dfs_tokens_.push_back(id);
    stack.push_back({node, true});
    const Node& nd = nodes_[node];
    for (uint32_t c = nd.first_child + nd.children; c-- > nd.first_child;)
      stack.push_back({child_nodes_[c], false});
  }
  // Children come after their parent in the breadth-first numbering: from
  // the last node back, each node's answer for every reader state is known
  // from its children's.
  std::vector<uint8_t> ok(n, 0);  // bit s: the suffixes below read as text from state s
  for (size_t i = n; i-- > 0;) {
    const Node& nd = nodes_[i];
    uint8_t bits = 0;
    for (int s = 0; s < kUtf8States; ++s) {
      bool all = true;
      for (uint32_t c = nd.first_child; all && c < nd.first_child + nd.children; ++c) {
        const Utf8State t = NextText(static_cast<Utf8State>(s), child_bytes_[c]);
        const uint32_t child = child_nodes_[c];
        all = t != kBad && ((ok[child] >> t) & 1u);
      }
      if (all) bits |= static_cast<uint8_t>(1u << s);
    }
    ok[i] = bits;
  }
  text_below_ = std::move(ok);
  ascii_below_.assign(n, {});
  for (size_t i = n; i-- > 0;) {
    const Node& nd = nodes_[i];
    for (uint32_t c = nd.first_child; c < nd.first_child + nd.children; ++c) {
      if (child_bytes_[c] < 0x80) ascii_below_[i].set(child_bytes_[c]);
      ascii_below_[i] |= ascii_below_[child_nodes_[c]];
    }
  }
}

std::vector<TokenId> TokenTrie::LongestFirst(std::string_view text) const {
  std::vector<TokenId> ids;
  for (size_t at = 0; at < text.size();) {
    uint32_t node = kRoot;
    TokenId best = -1;
    size_t best_len = 0;
    for (size_t i = at; i < text.size(); ++i) {
      const Node& n = nodes_[node];
      uint32_t next = 0;
      for (uint32_t c = n.first_child; c < n.first_child + n.children; ++c) {
        if (child_bytes_[c] == static_cast<uint8_t>(text[i])) next = child_nodes_[c];
      }
      if (next == 0) break;
      node = next;
      if (nodes_[node].tokens > 0) {
        best = tokens(nodes_[node])[0];
        best_len = i - at + 1;
      }
    }
    if (best < 0) return {};
    ids.push_back(best);
    at += best_len;
  }
  return ids;
}

}  // namespace orcd::structured
