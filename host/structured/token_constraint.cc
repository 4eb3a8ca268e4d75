#include "host/structured/token_constraint.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "host/common/status.h"

namespace orcd::structured {
namespace {

// States kept per job: a few hundred KiB at Qwen's vocabulary.
constexpr size_t kMaxCachedStates = 64;

bool Test(const std::vector<uint64_t>& bits, TokenId id) {
  return (bits[static_cast<size_t>(id) / 64] >> (static_cast<size_t>(id) % 64)) & 1u;
}

}  // namespace

TokenConstraint::TokenConstraint(std::shared_ptr<const Grammar> grammar, const TokenTrie& trie)
    : trie_(trie), matcher_(std::move(grammar)) {}

void TokenConstraint::Walk(uint32_t node, const GrammarMatcher& at,
                           std::vector<uint64_t>& bits) const {
  const TokenTrie::Node& n = trie_.node(node);
  for (uint32_t c = n.first_child; c < n.first_child + n.children; ++c) {
    GrammarMatcher next = at;
    if (!next.Accept(trie_.child_byte(c))) continue;
    const uint32_t child = trie_.child_node(c);
    for (const TokenId id : trie_.tokens(trie_.node(child)))
      bits[static_cast<size_t>(id) / 64] |= uint64_t{1} << (static_cast<size_t>(id) % 64);
    Walk(child, next, bits);
  }
}

const std::vector<uint64_t>& TokenConstraint::Allowed() {
  std::vector<uint32_t> key = matcher_.Key();
  if (const auto it = allowed_.find(key); it != allowed_.end()) return it->second;
  if (allowed_.size() >= kMaxCachedStates) allowed_.clear();
  std::vector<uint64_t> bits((trie_.vocab_size() + 63) / 64, 0);
  Walk(TokenTrie::kRoot, matcher_, bits);
  if (matcher_.CanEnd()) {
    for (const TokenId id : trie_.end_ids()) {
      if (id >= 0 && static_cast<size_t>(id) < trie_.vocab_size())
        bits[static_cast<size_t>(id) / 64] |= uint64_t{1} << (static_cast<size_t>(id) % 64);
    }
  }
  return allowed_.emplace(std::move(key), std::move(bits)).first->second;
}

bool TokenConstraint::MaskAllows(TokenId token) {
  return token >= 0 && static_cast<size_t>(token) < trie_.vocab_size() && Test(Allowed(), token);
}

bool TokenConstraint::Allows(TokenId token) const {
  if (std::find(trie_.end_ids().begin(), trie_.end_ids().end(), token) != trie_.end_ids().end())
    return matcher_.CanEnd();
  const std::string& piece = trie_.piece(token);
  if (piece.empty()) return false;  // control, unknown and unused tokens
  GrammarMatcher next = matcher_;
  return next.AcceptBytes(piece);
}

void TokenConstraint::Mask(std::span<float> logits) {
  const std::vector<uint64_t>& bits = Allowed();
  bool any = false;
  const size_t n = std::min(logits.size(), trie_.vocab_size());
  for (size_t i = 0; i < n; ++i) {
    if (Test(bits, static_cast<TokenId>(i))) {
      any = true;
    } else {
      logits[i] = -std::numeric_limits<float>::infinity();
    }
  }
  for (size_t i = n; i < logits.size(); ++i) logits[i] = -std::numeric_limits<float>::infinity();
  if (!any) {
    throw Error(ErrorCode::kInternal,
                "structured output: no token of the vocabulary continues the output");
  }
}

void TokenConstraint::Accept(TokenId token) {
  if (std::find(trie_.end_ids().begin(), trie_.end_ids().end(), token) != trie_.end_ids().end())
    return;
  if (!matcher_.AcceptBytes(trie_.piece(token))) {
    throw Error(ErrorCode::kInternal, "structured output: token " + std::to_string(token) +
                                          " does not continue the output");
  }
}

}  // namespace orcd::structured
