#include "host/structured/grammar_matcher.h"

#include <algorithm>

#include "host/common/status.h"

namespace orcd::structured {
namespace {

// Stacks one string may leave at once, and expansion depth: far beyond any
// grammar this host builds; past them the grammar is too ambiguous to run.
constexpr size_t kMaxStacks = 4096;
constexpr int kMaxDepth = 4096;

}  // namespace

GrammarMatcher::GrammarMatcher(std::shared_ptr<const Grammar> grammar)
    : grammar_(std::move(grammar)) {
  Stack root;
  for (const uint32_t start : grammar_->alternatives(grammar_->root())) {
    root.assign(1, start);
    Expand(root, stacks_, 0);
  }
  std::sort(stacks_.begin(), stacks_.end());
  stacks_.erase(std::unique(stacks_.begin(), stacks_.end()), stacks_.end());
}

void GrammarMatcher::Expand(Stack stack, std::vector<Stack>& out, int depth) const {
  if (depth > kMaxDepth || out.size() > kMaxStacks)
    throw Error(ErrorCode::kInvalidArgument, "the output grammar is too ambiguous to match");
  while (!stack.empty()) {
    const uint32_t position = stack.back();
    const Grammar::Symbol& symbol = grammar_->at(position);
    if (symbol.kind == Grammar::Symbol::kBytes || symbol.kind == Grammar::Symbol::kToken) break;
    stack.pop_back();
    if (symbol.kind == Grammar::Symbol::kEnd) continue;  // return to the caller
    // A rule: its continuation (unless it ends the alternative), then each
    // of its alternatives on a copy.
    if (grammar_->at(position + 1).kind != Grammar::Symbol::kEnd) stack.push_back(position + 1);
    const auto alternatives = grammar_->alternatives(symbol.index);
    for (size_t i = 0; i + 1 < alternatives.size(); ++i) {
      Stack copy = stack;
      copy.push_back(alternatives[i]);
      Expand(std::move(copy), out, depth + 1);
    }
    stack.push_back(alternatives.back());
  }
  out.push_back(std::move(stack));
}

void GrammarMatcher::Advance(uint8_t byte, std::vector<Stack>& out) const {
  out.clear();
  for (const Stack& stack : stacks_) {
    if (stack.empty()) continue;
    const uint32_t position = stack.back();
    const Grammar::Symbol& symbol = grammar_->at(position);
    if (symbol.kind != Grammar::Symbol::kBytes || !grammar_->bytes(symbol.index).test(byte))
      continue;
    Stack next = stack;
    next.back() = position + 1;
    Expand(std::move(next), out, 0);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

bool GrammarMatcher::Accept(uint8_t byte) {
  std::vector<Stack> next;
  Advance(byte, next);
  if (next.empty()) return false;
  stacks_ = std::move(next);
  return true;
}

std::optional<GrammarMatcher> GrammarMatcher::After(uint8_t byte) const {
  std::vector<Stack> stacks;
  Advance(byte, stacks);
  if (stacks.empty()) return std::nullopt;
  return GrammarMatcher(grammar_, std::move(stacks));
}

bool GrammarMatcher::AcceptBytes(std::string_view bytes) {
  std::vector<Stack> saved = stacks_;
  for (const char c : bytes) {
    if (!Accept(static_cast<uint8_t>(c))) {
      stacks_ = std::move(saved);
      return false;
    }
  }
  return true;
}

bool GrammarMatcher::AcceptControlToken(uint32_t index) {
  std::vector<Stack> next;
  for (const Stack& stack : stacks_) {
    if (stack.empty()) continue;
    const Grammar::Symbol& symbol = grammar_->at(stack.back());
    if (symbol.kind != Grammar::Symbol::kToken || symbol.index != index) continue;
    Stack advanced = stack;
    advanced.back() += 1;
    Expand(std::move(advanced), next, 0);
  }
  if (next.empty()) return false;
  std::sort(next.begin(), next.end());
  next.erase(std::unique(next.begin(), next.end()), next.end());
  stacks_ = std::move(next);
  return true;
}

ByteSet GrammarMatcher::NextBytes() const {
  ByteSet out;
  for (const Stack& stack : stacks_) {
    if (stack.empty()) continue;
    const Grammar::Symbol& symbol = grammar_->at(stack.back());
    if (symbol.kind == Grammar::Symbol::kBytes) out |= grammar_->bytes(symbol.index);
  }
  return out;
}

ByteSet GrammarMatcher::SameAs(uint8_t byte) const {
  ByteSet same;
  same.set();
  for (const Stack& stack : stacks_) {
    if (stack.empty()) continue;
    const Grammar::Symbol& symbol = grammar_->at(stack.back());
    if (symbol.kind != Grammar::Symbol::kBytes) continue;
    const ByteSet& set = grammar_->bytes(symbol.index);
    same &= set.test(byte) ? set : ~set;
  }
  return same;
}

std::vector<uint32_t> GrammarMatcher::ControlTokensNext() const {
  std::vector<uint32_t> out;
  for (const Stack& stack : stacks_) {
    if (stack.empty()) continue;
    const Grammar::Symbol& symbol = grammar_->at(stack.back());
    if (symbol.kind == Grammar::Symbol::kToken) out.push_back(symbol.index);
  }
  return out;
}

bool GrammarMatcher::CanEnd() const {
  return std::any_of(stacks_.begin(), stacks_.end(), [](const Stack& s) { return s.empty(); });
}

bool GrammarMatcher::CanContinue() const {
  return std::any_of(stacks_.begin(), stacks_.end(), [](const Stack& s) { return !s.empty(); });
}

std::vector<uint32_t> GrammarMatcher::Key() const {
  std::vector<uint32_t> key;
  for (const Stack& s : stacks_) {
    key.insert(key.end(), s.begin(), s.end());
    key.push_back(UINT32_MAX);
  }
  return key;
}

}  // namespace orcd::structured
