#include "host/structured/token_constraint.h"

#include <algorithm>
#include <bitset>
#include <cmath>
#include <limits>
#include <optional>
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

void TokenConstraint::Walk(uint32_t node, const GrammarMatcher& at, std::vector<uint64_t>& bits) {
  const auto mark = [&bits](std::span<const TokenId> ids) {
    for (const TokenId id : ids)
      bits[static_cast<size_t>(id) / 64] |= uint64_t{1} << (static_cast<size_t>(id) % 64);
  };
  const TokenTrie::Node& n = trie_.node(node);
  for (uint32_t c = n.first_child; c < n.first_child + n.children; ++c) {
    GrammarMatcher next = at;
    if (!next.Accept(trie_.child_byte(c))) continue;
    const uint32_t child = trie_.child_node(c);
    mark(trie_.tokens(trie_.node(child)));
    if (const TextLoop* loop = LoopOf(next)) {
      std::string partial;
      WalkText(child, StepsFrom(next, *loop), kBoundary, partial, nullptr, bits);
      continue;
    }
    // A character begun into a loop (a free string after a mixed state,
    // e.g. a key that may be a listed name or any other): text from here.
    const Utf8State begun = NextText(kBoundary, trie_.child_byte(c));
    if (begun != kBoundary && begun != kBad) {
      if (const std::optional<GrammarMatcher>& loop = LoopAfterCharacter(next, begun)) {
        std::string partial(1, static_cast<char>(trie_.child_byte(c)));
        WalkText(child, StepsFrom(*loop, *LoopOf(*loop)), begun, partial, &at, bits);
        continue;
      }
    }
    Walk(child, next, bits);
  }
}

const std::optional<GrammarMatcher>& TokenConstraint::LoopAfterCharacter(const GrammarMatcher& mid,
                                                                         Utf8State text) {
  std::vector<uint32_t> key = mid.Key();
  key.push_back(text);
  if (const auto it = after_character_.find(key); it != after_character_.end()) return it->second;
  if (after_character_.size() >= 4 * kMaxCachedStates) after_character_.clear();
  std::optional<GrammarMatcher> state = mid;
  for (Utf8State t = text; state && t != kBoundary;) {
    std::optional<GrammarMatcher> same;
    Utf8State next_t = kBad;
    for (int b = 0x80; state && b <= 0xBF; ++b) {
      const Utf8State n = NextText(t, static_cast<uint8_t>(b));
      if (n == kBad) continue;
      next_t = n;
      GrammarMatcher next = *state;
      if (!next.Accept(static_cast<uint8_t>(b)) || (same && same->Key() != next.Key())) {
        state.reset();
      } else if (!same) {
        same = std::move(next);
      }
    }
    if (state) state = std::move(same);
    t = next_t;
  }
  if (state && LoopOf(*state) == nullptr) state.reset();
  return after_character_.emplace(std::move(key), std::move(state)).first->second;
}

TokenConstraint::LoopSteps& TokenConstraint::StepsFrom(const GrammarMatcher& loop,
                                                       const TextLoop& text) {
  std::vector<uint32_t> key = loop.Key();
  std::unique_ptr<LoopSteps>& steps = steps_[std::move(key)];
  if (!steps) steps = std::make_unique<LoopSteps>(LoopSteps{loop, text.exceptions, {}, {}});
  return *steps;
}

void TokenConstraint::WalkText(uint32_t node, LoopSteps& steps, Utf8State text,
                               std::string& partial, const GrammarMatcher* char_start,
                               std::vector<uint64_t>& bits) {
  const auto mark = [&bits](std::span<const TokenId> ids) {
    for (const TokenId id : ids)
      bits[static_cast<size_t>(id) / 64] |= uint64_t{1} << (static_cast<size_t>(id) % 64);
  };
  if (trie_.text_below(node, text) && !trie_.ascii_below(node, steps.exceptions)) {
    mark(trie_.subtree_tokens(node));  // every token below reads as text: all taken
    return;
  }
  const TokenTrie::Node& n = trie_.node(node);
  for (uint32_t c = n.first_child; c < n.first_child + n.children; ++c) {
    const uint8_t byte = trie_.child_byte(c);
    const uint32_t child = trie_.child_node(c);
    const bool exception = byte < 0x80 && steps.exceptions.test(byte);
    const Utf8State next_text = exception ? kBad : NextText(text, byte);
    if (next_text != kBad) {
      // A text character, whole or begun: the loop state takes every one
      // (checked byte by byte in LoopOf), and is back once it is whole.
      mark(trie_.tokens(trie_.node(child)));
      partial.push_back(static_cast<char>(byte));
      std::string inner = next_text == kBoundary ? std::string() : partial;
      WalkText(child, steps, next_text, inner, next_text == kBoundary ? nullptr : char_start, bits);
      partial.pop_back();
      continue;
    }
    // Not text here, or an exception: the grammar decides, from the loop
    // state and the character begun so far (at a boundary, once per byte).
    std::optional<GrammarMatcher> after;
    if (partial.empty()) {
      if (!steps.known[byte]) {
        GrammarMatcher next = steps.loop;
        if (next.Accept(byte)) steps.next[byte] = std::move(next);
        steps.known[byte] = true;
      }
      if (!steps.next[byte]) continue;
      after = steps.next[byte];
    } else {
      GrammarMatcher next = char_start != nullptr ? *char_start : steps.loop;
      if (!next.AcceptBytes(partial) || !next.Accept(byte)) continue;
      after = std::move(next);
    }
    mark(trie_.tokens(trie_.node(child)));
    Walk(child, *after, bits);
  }
}

const TokenConstraint::TextLoop* TokenConstraint::LoopOf(const GrammarMatcher& at) {
  std::vector<uint32_t> key = at.Key();
  {
    // Most states fail at once (a counted string, a number, structure):
    // two letters, before the cache and the whole check.
    GrammarMatcher x = at, q = at;
    if (!(x.Accept('x') && x.Key() == key) && !(q.Accept('Q') && q.Key() == key)) return nullptr;
  }
  if (const auto it = loops_.find(key); it != loops_.end())
    return it->second ? &*it->second : nullptr;
  if (loops_.size() >= 4 * kMaxCachedStates) loops_.clear();
  TextLoop loop;
  bool loops = true;
  // ASCII text characters: each leads back to `at`, or is an exception (at
  // most kMaxExceptions: a listed key's first letter, an unanchored
  // pattern's start), which the walk hands to the grammar.
  for (int c = 0x20; c < 0x80; ++c) {
    if (c == '"' || c == '\\') continue;
    GrammarMatcher next = at;
    if (!next.Accept(static_cast<uint8_t>(c)) || next.Key() != key)
      loop.exceptions.set(static_cast<size_t>(c));
  }
  loops = loop.exceptions.count() <= kMaxExceptions;
  // Every other character, exactly, by byte layers: every character of a
  // class (a lead byte range with its continuation ranges, Unicode's table
  // 3-7) reaches one and the same state after each byte, and `at` after
  // the last.
  struct Layered {
    std::vector<std::pair<uint8_t, uint8_t>> ranges;  // per byte of the character
  };
  static const Layered kClasses[] = {
      {{{0xC2, 0xDF}, {0x80, 0xBF}}},
      {{{0xE0, 0xE0}, {0xA0, 0xBF}, {0x80, 0xBF}}},
      {{{0xE1, 0xEC}, {0x80, 0xBF}, {0x80, 0xBF}}},
      {{{0xED, 0xED}, {0x80, 0x9F}, {0x80, 0xBF}}},
      {{{0xEE, 0xEF}, {0x80, 0xBF}, {0x80, 0xBF}}},
      {{{0xF0, 0xF0}, {0x90, 0xBF}, {0x80, 0xBF}, {0x80, 0xBF}}},
      {{{0xF1, 0xF3}, {0x80, 0xBF}, {0x80, 0xBF}, {0x80, 0xBF}}},
      {{{0xF4, 0xF4}, {0x80, 0x8F}, {0x80, 0xBF}, {0x80, 0xBF}}},
  };
  for (const Layered& cls : kClasses) {
    if (!loops) break;
    GrammarMatcher state = at;
    for (size_t layer = 0; loops && layer < cls.ranges.size(); ++layer) {
      std::optional<GrammarMatcher> same;
      for (int b = cls.ranges[layer].first; loops && b <= cls.ranges[layer].second; ++b) {
        GrammarMatcher next = state;
        if (!next.Accept(static_cast<uint8_t>(b))) {
          loops = false;
        } else if (!same) {
          same = next;
        } else if (same->Key() != next.Key()) {
          loops = false;
        }
      }
      if (loops) state = *same;
    }
    loops = loops && state.Key() == key;
  }
  auto& slot = loops_[std::move(key)];
  if (loops) slot = loop;
  return slot ? &*slot : nullptr;
}

const std::vector<uint64_t>& TokenConstraint::Allowed() {
  std::vector<uint32_t> key = matcher_.Key();
  if (const auto it = allowed_.find(key); it != allowed_.end()) return it->second;
  if (allowed_.size() >= kMaxCachedStates) allowed_.clear();
  std::vector<uint64_t> bits((trie_.vocab_size() + 63) / 64, 0);
  if (const TextLoop* loop = LoopOf(matcher_)) {  // inside a free string: text, no grammar
    std::string partial;
    WalkText(TokenTrie::kRoot, StepsFrom(matcher_, *loop), kBoundary, partial, nullptr, bits);
  } else {
    Walk(TokenTrie::kRoot, matcher_, bits);
  }
  for (const uint32_t index : matcher_.ControlTokensNext()) {
    const TokenId id = trie_.control_token(matcher_.grammar().control_token(index));
    if (id >= 0 && static_cast<size_t>(id) < trie_.vocab_size())
      bits[static_cast<size_t>(id) / 64] |= uint64_t{1} << (static_cast<size_t>(id) % 64);
  }
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
  if (piece.empty()) return ControlTokenIndex(token).has_value();  // control tokens
  GrammarMatcher next = matcher_;
  return next.AcceptBytes(piece);
}

std::optional<uint32_t> TokenConstraint::ControlTokenIndex(TokenId token) const {
  for (const uint32_t index : matcher_.ControlTokensNext()) {
    if (trie_.control_token(matcher_.grammar().control_token(index)) == token) return index;
  }
  return std::nullopt;
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
  if (trie_.piece(token).empty()) {
    const std::optional<uint32_t> index = ControlTokenIndex(token);
    if (index && matcher_.AcceptControlToken(*index)) return;
    throw Error(ErrorCode::kInternal, "structured output: control token " + std::to_string(token) +
                                          " does not continue the output");
  }
  if (!matcher_.AcceptBytes(trie_.piece(token))) {
    throw Error(ErrorCode::kInternal, "structured output: token " + std::to_string(token) +
                                          " does not continue the output");
  }
}

}  // namespace orcd::structured
