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
    : trie_(trie), states_(GrammarMatcher(std::move(grammar))), shared_(std::move(shared)) {}

void TokenConstraint::Walk(uint32_t node, StateId at, std::vector<uint64_t>& bits) {
  const TokenTrie::Node& n = trie_.node(node);
  for (uint32_t c = n.first_child; c < n.first_child + n.children; ++c) {
    const uint8_t byte = trie_.child_byte(c);
    const StateId next = states_.Next(at, byte);
    if (next != kNone) WalkChild(trie_.child_node(c), byte, at, next, bits);
  }
}

void TokenConstraint::WalkChild(uint32_t child, uint8_t byte, StateId from, StateId next,
                                std::vector<uint64_t>& bits) {
  Mark(trie_.tokens(trie_.node(child)), bits);
  if (TextStep* step = StepOf(next)) {
    std::string partial;
    WalkText(child, *step, kBoundary, partial, kNone, bits);
    return;
  }
  // A character begun into a free string (after a mixed state, e.g. a key
  // that may be a listed name or any other): text from here.
  const Utf8State begun = NextText(kBoundary, byte);
  if (begun != kBoundary && begun != kBad) {
    if (const StateId loop = LoopAfterCharacter(next, begun); loop != kNone) {
      std::string partial(1, static_cast<char>(byte));
      WalkText(child, *StepOf(loop), begun, partial, from, bits);
      return;
    }
  }
  Walk(child, next, bits);
}

TokenConstraint::StateId TokenConstraint::LoopAfterCharacter(StateId mid, Utf8State text) {
  const uint64_t key = uint64_t{mid} * 16 + text;
  if (const auto it = after_character_.find(key); it != after_character_.end()) return it->second;
  StateId state = mid;
  for (Utf8State t = text; state != kNone && t != kBoundary;) {
    StateId same = kNone;
    Utf8State next_t = kBad;
    for (int b = 0x80; state != kNone && b <= 0xBF; ++b) {
      const Utf8State n = NextText(t, static_cast<uint8_t>(b));
      if (n == kBad) continue;
      next_t = n;
      const StateId next = states_.Next(state, static_cast<uint8_t>(b));
      if (next == kNone || (same != kNone && same != next)) {
        state = kNone;
      } else {
        same = next;
      }
    }
    if (state != kNone) state = same;
    t = next_t;
  }
  if (state != kNone) {
    const TextStep* step = StepOf(state);
    if (step == nullptr || !step->loops) state = kNone;
  }
  after_character_.emplace(key, state);
  return state;
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
                               StateId char_start, std::vector<uint64_t>& bits) {
  if (step.loops && trie_.text_below(node, text) && !trie_.ascii_below(node, step.exceptions)) {
    Mark(trie_.subtree_tokens(node), bits);  // every token below reads as text: all taken
    return;
  }
  if (text == kBoundary && char_start == kNone && trie_.run_state(node) == kBoundary &&
      WalkRun(node, step, bits)) {
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
      } else if (TextStep* after = char_start != kNone ? &step : NextStep(step)) {
        std::string none;
        WalkText(child, *after, kBoundary, none, kNone, bits);
      } else {
        Walk(child, step.after_text, bits);  // no text step there: the grammar, exactly
      }
      continue;
    }
    // Not text here, or an exception: the grammar decides, from the state
    // and the character begun so far.
    const StateId from = states_.After(char_start != kNone ? char_start : step.state, partial);
    const StateId after = from == kNone ? kNone : states_.Next(from, byte);
    if (after == kNone) continue;
    Mark(trie_.tokens(trie_.node(child)), bits);
    Walk(child, after, bits);
  }
}

bool TokenConstraint::WalkRun(uint32_t node, TextStep& step, std::vector<uint64_t>& bits) {
  // The steps at each character ahead, as far as the run below goes (the
  // last repeats once one loops). The first may have exceptions when it
  // does not loop: they matter only as `node`'s children.
  const uint32_t ahead = trie_.run_chars_end(node) - trie_.run_chars(node);
  std::vector<TextStep*> chain;
  for (TextStep* s = &step; chain.size() <= ahead; s = NextStep(*s)) {
    if (s == nullptr || !s->closed) return false;
    if ((s->loops || !chain.empty()) && trie_.ascii_below(node, s->exceptions))
      return WalkRunThroughExceptions(node, step, bits);
    chain.push_back(s);
    if (s->loops) break;
  }
  // Every token of the run, then not those below an exception.
  MarkRun(node, bits);
  std::vector<uint32_t> exceptions;  // child links
  const TokenTrie::Node& n = trie_.node(node);
  for (uint32_t c = n.first_child; c < n.first_child + n.children && chain[0]->exceptions.any();
       ++c) {
    const uint8_t byte = trie_.child_byte(c);
    if (byte >= 0x80 || !chain[0]->exceptions.test(byte)) continue;
    exceptions.push_back(c);
    for (const TokenId id : trie_.run_tokens(trie_.child_node(c)))
      bits[static_cast<size_t>(id) / 64] &= ~(uint64_t{1} << (static_cast<size_t>(id) % 64));
  }
  // Where a quote or a backslash ends the run: the grammar, from the step
  // at that character.
  const std::span<const TokenTrie::RunExit> exits = trie_.run_exits(node);
  for (const TokenTrie::RunExit& exit : exits) {
    const bool below_exception = std::any_of(exceptions.begin(), exceptions.end(), [&](uint32_t c) {
      const std::span<const TokenTrie::RunExit> skip = trie_.run_exits(trie_.child_node(c));
      return &exit >= skip.data() && &exit < skip.data() + skip.size();
    });
    if (below_exception) continue;
    const size_t at = std::min<size_t>(exit.chars - trie_.run_chars(node), chain.size() - 1);
    const StateId from = chain[at]->state;
    const StateId after = states_.Next(from, exit.byte);
    if (after != kNone) WalkChild(exit.child, exit.byte, from, after, bits);
  }
  // Below an exception: the grammar.
  for (const uint32_t c : exceptions) {
    const StateId after = states_.Next(chain[0]->state, trie_.child_byte(c));
    if (after != kNone)
      WalkChild(trie_.child_node(c), trie_.child_byte(c), chain[0]->state, after, bits);
  }
  return true;
}

void TokenConstraint::MarkRun(uint32_t node, std::vector<uint64_t>& bits) const {
  if (node == TokenTrie::kRoot) {
    const std::vector<uint64_t>& run = trie_.root_run_bits();
    for (size_t w = 0; w < bits.size(); ++w) bits[w] |= run[w];
  } else {
    Mark(trie_.run_tokens(node), bits);
  }
}

bool TokenConstraint::WalkRunThroughExceptions(uint32_t node, TextStep& step,
                                               std::vector<uint64_t>& bits) {
  if (step.text_total == 0) {
    // A handful: an unanchored pattern's states before, in and after its match.
    constexpr size_t kMaxStates = 32;
    std::vector<StateId> reach = {step.state};
    const auto add = [&](StateId s) {
      if (s == kNone) return false;
      if (std::find(reach.begin(), reach.end(), s) == reach.end()) {
        if (reach.size() == kMaxStates) return false;
        reach.push_back(s);
      }
      return true;
    };
    bool total = true;
    for (size_t i = 0; total && i < reach.size(); ++i) {
      const TextStep* t = StepOf(reach[i]);
      total = t != nullptr && t->closed && add(t->after_text);
      for (int c = 0x20; total && c < 0x80; ++c) {
        if (t->exceptions.test(static_cast<size_t>(c)))
          total = add(states_.Next(t->state, static_cast<uint8_t>(c)));
      }
    }
    step.text_total = total ? 1 : -1;
  }
  if (step.text_total < 0) return false;
  MarkRun(node, bits);
  std::vector<uint8_t> path;  // the run's bytes from `node` to an exit, last first
  for (const TokenTrie::RunExit& exit : trie_.run_exits(node)) {
    path.clear();
    for (uint32_t n = trie_.parent(exit.child); n != node; n = trie_.parent(n))
      path.push_back(trie_.byte_in(n));
    StateId from = step.state;
    for (auto b = path.rbegin(); b != path.rend() && from != kNone; ++b)
      from = states_.Next(from, *b);
    const StateId after = from == kNone ? kNone : states_.Next(from, exit.byte);
    if (after != kNone) WalkChild(exit.child, exit.byte, from, after, bits);
  }
  return true;
}

TokenConstraint::TextStep* TokenConstraint::StepOf(StateId at) {
  // Most states fail at once (a number, structure): two letters that must
  // lead to one state, before the cache and the whole check.
  const StateId x = states_.Next(at, 'x');
  if (x == kNone || states_.Next(at, 'Q') != x) return nullptr;
  if (const auto it = steps_.find(at); it != steps_.end()) return it->second.get();
  auto step = std::make_unique<TextStep>(TextStep{at, {}, x, x == at});
  // ASCII text characters: each leads to `x`'s state, or is an exception.
  for (int c = 0x20; c < 0x80; ++c) {
    if (c == '"' || c == '\\') continue;
    if (states_.Next(at, static_cast<uint8_t>(c)) != x)
      step->exceptions.set(static_cast<size_t>(c));
  }
  bool uniform = step->exceptions.count() <= kMaxExceptions;
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
  bool closed = true;
  for (int b = 0; b < 256; ++b) {
    const auto byte = static_cast<uint8_t>(b);
    if (b != '"' && b != '\\' && NextText(kBoundary, byte) == kBad &&
        states_.Next(at, byte) != kNone)
      closed = false;
  }
  for (const Layered& cls : kClasses) {
    if (!uniform) break;
    StateId state = at;
    for (size_t layer = 0; uniform && layer < cls.ranges.size(); ++layer) {
      const auto [lo, hi] = cls.ranges[layer];
      for (int b = 0; layer > 0 && closed && b < 256; ++b) {
        if ((b < lo || b > hi) && states_.Next(state, static_cast<uint8_t>(b)) != kNone)
          closed = false;
      }
      StateId same = kNone;
      for (int b = cls.ranges[layer].first; uniform && b <= cls.ranges[layer].second; ++b) {
        const StateId next = states_.Next(state, static_cast<uint8_t>(b));
        if (next == kNone || (same != kNone && same != next)) {
          uniform = false;
        } else {
          same = next;
        }
      }
      if (uniform) state = same;
    }
    uniform = uniform && state == x;
  }
  step->closed = closed;
  std::unique_ptr<TextStep>& slot = steps_[at];
  if (uniform) slot = std::move(step);
  return slot.get();
}

void TokenConstraint::BoundStates() {
  // A job's worth: ~1 KiB of transitions a state.
  constexpr size_t kMaxStates = 4096;
  if (states_.size() <= kMaxStates) return;
  states_.Reset(current_);
  current_ = 0;
  steps_.clear();
  after_character_.clear();
}

const std::vector<uint64_t>& TokenConstraint::Allowed() {
  const std::vector<uint32_t>& key = states_.key(current_);
  if (const auto it = allowed_.find(key); it != allowed_.end()) return *it->second;
  if (allowed_.size() >= kMaxCachedStates) allowed_.clear();
  if (shared_ != nullptr) {
    if (std::shared_ptr<const MaskBits> known = shared_->Find(key))
      return *allowed_.emplace(key, std::move(known)).first->second;
  }
  BoundStates();
  MaskBits bits((trie_.vocab_size() + 63) / 64, 0);
  if (TextStep* step = StepOf(current_)) {  // inside a string: text without the grammar
    std::string partial;
    WalkText(TokenTrie::kRoot, *step, kBoundary, partial, kNone, bits);
  } else {
    Walk(TokenTrie::kRoot, current_, bits);
  }
  const GrammarMatcher& m = matcher();
  for (const uint32_t index : m.ControlTokensNext()) {
    const TokenId id = trie_.control_token(m.grammar().control_token(index));
    if (id >= 0 && static_cast<size_t>(id) < trie_.vocab_size())
      bits[static_cast<size_t>(id) / 64] |= uint64_t{1} << (static_cast<size_t>(id) % 64);
  }
  if (m.CanEnd()) {
    for (const TokenId id : trie_.end_ids()) {
      if (id >= 0 && static_cast<size_t>(id) < trie_.vocab_size())
        bits[static_cast<size_t>(id) / 64] |= uint64_t{1} << (static_cast<size_t>(id) % 64);
    }
  }
  auto computed = std::make_shared<const MaskBits>(std::move(bits));
  const std::vector<uint32_t>& walked = states_.key(current_);  // BoundStates may renumber
  if (shared_ != nullptr) shared_->Insert(walked, computed);
  return *allowed_.emplace(walked, std::move(computed)).first->second;
}

std::span<const uint64_t> TokenConstraint::AllowedBits() {
  const std::vector<uint64_t>& bits = Allowed();
  if (std::all_of(bits.begin(), bits.end(), [](uint64_t w) { return w == 0; })) {
    throw Error(ErrorCode::kInternal,
                "structured output: no token of the vocabulary continues the output");
  }
  return bits;
}

bool TokenConstraint::MaskAllows(TokenId token) {
  return token >= 0 && static_cast<size_t>(token) < trie_.vocab_size() && Test(Allowed(), token);
}

bool TokenConstraint::Allows(TokenId token) const {
  if (std::find(trie_.end_ids().begin(), trie_.end_ids().end(), token) != trie_.end_ids().end())
    return matcher().CanEnd();
  const std::string& piece = trie_.piece(token);
  if (piece.empty()) return ControlTokenIndex(token).has_value();  // control tokens
  // The matcher itself, not the walk's table: a pick is a few bytes, and
  // the tests hold the masks to this answer.
  GrammarMatcher next = matcher();
  return next.AcceptBytes(piece);
}

std::optional<uint32_t> TokenConstraint::ControlTokenIndex(TokenId token) const {
  for (const uint32_t index : matcher().ControlTokensNext()) {
    if (trie_.control_token(matcher().grammar().control_token(index)) == token) return index;
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
    GrammarMatcher next = matcher();
    if (index && next.AcceptControlToken(*index)) {
      current_ = states_.Intern(std::move(next));
      return;
    }
    throw Error(ErrorCode::kInternal, "structured output: control token " + std::to_string(token) +
                                          " does not continue the output");
  }
  const StateId next = states_.After(current_, trie_.piece(token));
  if (next == kNone) {
    throw Error(ErrorCode::kInternal, "structured output: token " + std::to_string(token) +
                                          " does not continue the output");
  }
  current_ = next;
}

}  // namespace orcd::structured
