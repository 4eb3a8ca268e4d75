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

void Mark(std::span<const TokenId> ids, std::vector<uint64_t>& bits) {
  for (const TokenId id : ids)
    bits[static_cast<size_t>(id) / 64] |= uint64_t{1} << (static_cast<size_t>(id) % 64);
}

bool Test(const std::vector<uint64_t>& bits, TokenId id) {
  return (bits[static_cast<size_t>(id) / 64] >> (static_cast<size_t>(id) % 64)) & 1u;
}

}  // namespace

TokenConstraint::TokenConstraint(std::shared_ptr<const Grammar> grammar, const TokenTrie& trie,
                                 std::shared_ptr<MaskCache> shared)
    : trie_(trie), matcher_(std::move(grammar)), shared_(std::move(shared)) {}

void TokenConstraint::Walk(uint32_t node, const GrammarMatcher& at, std::vector<uint64_t>& bits) {
  const TokenTrie::Node& n = trie_.node(node);
  for (uint32_t c = n.first_child; c < n.first_child + n.children; ++c) {
    // After builds the next state without copying this one; most bytes are
    // refused at once, with nothing allocated.
    const std::optional<GrammarMatcher> after = at.After(trie_.child_byte(c));
    if (!after) continue;
    const GrammarMatcher& next = *after;
    const uint32_t child = trie_.child_node(c);
    Mark(trie_.tokens(trie_.node(child)), bits);
    if (TextStep* step = StepOf(next)) {
      std::string partial;
      WalkText(child, *step, kBoundary, partial, nullptr, bits);
      continue;
    }
    // A character begun into a free string (after a mixed state, e.g. a key
    // that may be a listed name or any other): text from here.
    const Utf8State begun = NextText(kBoundary, trie_.child_byte(c));
    if (begun != kBoundary && begun != kBad) {
      if (const std::optional<GrammarMatcher>& loop = LoopAfterCharacter(next, begun)) {
        std::string partial(1, static_cast<char>(trie_.child_byte(c)));
        WalkText(child, *StepOf(*loop), begun, partial, &at, bits);
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
      std::optional<GrammarMatcher> next = state->After(static_cast<uint8_t>(b));
      if (!next || (same && same->Key() != next->Key())) {
        state.reset();
      } else if (!same) {
        same = std::move(next);
      }
    }
    if (state) state = std::move(same);
    t = next_t;
  }
  if (state) {
    const TextStep* step = StepOf(*state);
    if (step == nullptr || !step->loops) state.reset();
  }
  return after_character_.emplace(std::move(key), std::move(state)).first->second;
}

TokenConstraint::TextStep* TokenConstraint::NextStep(TextStep& step) {
  if (step.loops) return &step;
  if (!step.next_resolved) {
    step.next = StepOf(step.after_text);
    step.next_resolved = true;
  }
  return step.next;
}

void TokenConstraint::WalkText(uint32_t node, TextStep& step, Utf8State text, std::string& partial,
                               const GrammarMatcher* char_start, std::vector<uint64_t>& bits) {
  if (step.loops && trie_.text_below(node, text) && !trie_.ascii_below(node, step.exceptions)) {
    Mark(trie_.subtree_tokens(node), bits);  // every token below reads as text: all taken
    return;
  }
  const TokenTrie::Node& n = trie_.node(node);
  for (uint32_t c = n.first_child; c < n.first_child + n.children; ++c) {
    const uint8_t byte = trie_.child_byte(c);
    const uint32_t child = trie_.child_node(c);
    const bool exception = text == kBoundary && byte < 0x80 && step.exceptions.test(byte);
    const Utf8State next_text = exception ? kBad : NextText(text, byte);
    if (next_text != kBad) {
      // A text character, whole or begun: every one is taken (checked byte
      // layer by layer in StepOf); once whole, the walk is at the next step.
      Mark(trie_.tokens(trie_.node(child)), bits);
      if (next_text != kBoundary) {
        partial.push_back(static_cast<char>(byte));
        WalkText(child, step, next_text, partial, char_start, bits);
        partial.pop_back();
      } else if (TextStep* after = char_start != nullptr ? &step : NextStep(step)) {
        std::string none;
        WalkText(child, *after, kBoundary, none, nullptr, bits);
      } else {
        Walk(child, step.after_text, bits);  // no text step there: the grammar, exactly
      }
      continue;
    }
    // Not text here, or an exception: the grammar decides, from the state
    // and the character begun so far (at a boundary, once per byte).
    std::optional<GrammarMatcher> after;
    if (partial.empty()) {
      if (!step.known[byte]) {
        step.after[byte] = step.state.After(byte);
        step.known[byte] = true;
      }
      if (!step.after[byte]) continue;
      after = step.after[byte];
    } else {
      GrammarMatcher next = char_start != nullptr ? *char_start : step.state;
      if (!next.AcceptBytes(partial) || !next.Accept(byte)) continue;
      after = std::move(next);
    }
    Mark(trie_.tokens(trie_.node(child)), bits);
    Walk(child, *after, bits);
  }
}

TokenConstraint::TextStep* TokenConstraint::StepOf(const GrammarMatcher& at) {
  // Most states fail at once (a number, structure): two letters that must
  // lead to one state, before the cache and the whole check.
  const std::optional<GrammarMatcher> x = at.After('x');
  if (!x) return nullptr;
  const std::optional<GrammarMatcher> q = at.After('Q');
  if (!q) return nullptr;
  std::vector<uint32_t> after_key = x->Key();
  if (q->Key() != after_key) return nullptr;
  std::vector<uint32_t> key = at.Key();
  if (const auto it = steps_.find(key); it != steps_.end()) return it->second.get();
  if (steps_.size() >= 4 * kMaxCachedStates) return nullptr;  // a job's worth; the walk still works
  auto step = std::make_unique<TextStep>(TextStep{at, {}, *x, after_key == key});
  bool uniform = true;
  // ASCII text characters: each leads to `x`'s state, or is an exception.
  for (int c = 0x20; c < 0x80; ++c) {
    if (c == '"' || c == '\\') continue;
    const std::optional<GrammarMatcher> next = at.After(static_cast<uint8_t>(c));
    if (!next || next->Key() != after_key) step->exceptions.set(static_cast<size_t>(c));
  }
  uniform = step->exceptions.count() <= kMaxExceptions;
  // Every other character, exactly, by byte layers: every character of a
  // class (a lead byte range with its continuation ranges, Unicode's table
  // 3-7) reaches one and the same state after each byte, and `x`'s after
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
    if (!uniform) break;
    GrammarMatcher state = at;
    for (size_t layer = 0; uniform && layer < cls.ranges.size(); ++layer) {
      std::optional<GrammarMatcher> same;
      for (int b = cls.ranges[layer].first; uniform && b <= cls.ranges[layer].second; ++b) {
        std::optional<GrammarMatcher> next = state.After(static_cast<uint8_t>(b));
        if (!next) {
          uniform = false;
        } else if (!same) {
          same = std::move(next);
        } else if (same->Key() != next->Key()) {
          uniform = false;
        }
      }
      if (uniform) state = *same;
    }
    uniform = uniform && state.Key() == after_key;
  }
  std::unique_ptr<TextStep>& slot = steps_[std::move(key)];
  if (uniform) slot = std::move(step);
  return slot.get();
}

const std::vector<uint64_t>& TokenConstraint::Allowed() {
  std::vector<uint32_t> key = matcher_.Key();
  if (const auto it = allowed_.find(key); it != allowed_.end()) return *it->second;
  if (allowed_.size() >= kMaxCachedStates) allowed_.clear();
  if (shared_ != nullptr) {
    if (std::shared_ptr<const MaskBits> known = shared_->Find(key))
      return *allowed_.emplace(std::move(key), std::move(known)).first->second;
  }
  MaskBits bits((trie_.vocab_size() + 63) / 64, 0);
  if (TextStep* step = StepOf(matcher_)) {  // inside a string: text without the grammar
    std::string partial;
    WalkText(TokenTrie::kRoot, *step, kBoundary, partial, nullptr, bits);
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
  auto computed = std::make_shared<const MaskBits>(std::move(bits));
  if (shared_ != nullptr) shared_->Insert(key, computed);
  return *allowed_.emplace(std::move(key), std::move(computed)).first->second;
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
  constexpr float kRefused = -std::numeric_limits<float>::infinity();
  bool any = false;
  const size_t n = std::min(logits.size(), trie_.vocab_size());
  // Word by word: most states allow a few tokens, so most words are zero
  // (64 logits refused in one fill); token by token this loop was most of
  // a cached state's mask (~75 us at Qwen's 151,936 tokens).
  for (size_t w = 0; w * 64 < n; ++w) {
    const size_t first = w * 64;
    const size_t count = std::min<size_t>(64, n - first);
    const uint64_t word = count == 64 ? bits[w] : bits[w] & ((uint64_t{1} << count) - 1);
    if (word == 0) {
      std::fill_n(logits.begin() + static_cast<std::ptrdiff_t>(first), count, kRefused);
      continue;
    }
    any = true;
    if (word == ~uint64_t{0}) continue;
    for (size_t i = 0; i < count; ++i) {
      if (((word >> i) & 1u) == 0) logits[first + i] = kRefused;
    }
  }
  for (size_t i = n; i < logits.size(); ++i) logits[i] = kRefused;
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
