#include "host/structured/grammar.h"

#include <functional>
#include <string>

#include "host/common/status.h"

namespace orcd::structured {

uint32_t GrammarBuilder::Declare() {
  rules_.emplace_back();
  defined_.push_back(false);
  return static_cast<uint32_t>(rules_.size() - 1);
}

void GrammarBuilder::Define(uint32_t rule, std::vector<Sequence> alternatives) {
  if (rule >= rules_.size() || defined_[rule] || alternatives.empty())
    throw Error(ErrorCode::kInternal, "grammar: rule " + std::to_string(rule) + " defined wrongly");
  rules_[rule] = std::move(alternatives);
  defined_[rule] = true;
}

uint32_t GrammarBuilder::AddRule(std::vector<Sequence> alternatives) {
  const uint32_t rule = Declare();
  Define(rule, std::move(alternatives));
  return rule;
}

GrammarBuilder::Symbol GrammarBuilder::Bytes(const ByteSet& set) {
  for (size_t i = 0; i < byte_sets_.size(); ++i) {
    if (byte_sets_[i] == set) return {Symbol::kBytes, static_cast<uint32_t>(i)};
  }
  byte_sets_.push_back(set);
  return {Symbol::kBytes, static_cast<uint32_t>(byte_sets_.size() - 1)};
}

GrammarBuilder::Symbol GrammarBuilder::Byte(uint8_t b) { return Range(b, b); }

GrammarBuilder::Symbol GrammarBuilder::ControlToken(std::string_view text) {
  for (size_t i = 0; i < control_tokens_.size(); ++i) {
    if (control_tokens_[i] == text) return {Symbol::kToken, static_cast<uint32_t>(i)};
  }
  control_tokens_.emplace_back(text);
  return {Symbol::kToken, static_cast<uint32_t>(control_tokens_.size() - 1)};
}

GrammarBuilder::Symbol GrammarBuilder::Range(uint8_t lo, uint8_t hi) {
  ByteSet set;
  for (int b = lo; b <= hi; ++b) set.set(static_cast<size_t>(b));
  return Bytes(set);
}

GrammarBuilder::Sequence GrammarBuilder::Literal(std::string_view text) {
  Sequence s;
  for (const char c : text) s.push_back(Byte(static_cast<uint8_t>(c)));
  return s;
}

GrammarBuilder::Symbol GrammarBuilder::Optional(Sequence s) {
  return Ref(AddRule({std::move(s), {}}));
}

GrammarBuilder::Symbol GrammarBuilder::Star(Sequence s) {
  const uint32_t rule = Declare();
  s.push_back(Ref(rule));
  Define(rule, {std::move(s), {}});
  return Ref(rule);
}

GrammarBuilder::Symbol GrammarBuilder::Repeat(const Sequence& s, int64_t min, int64_t max) {
  // min copies, then either a Star or (max - min) nested optionals:
  // s (s (s)?)? keeps one parse per count.
  Sequence out;
  for (int64_t i = 0; i < min; ++i) Append(out, s);
  if (max < 0) {
    out.push_back(Star(s));
  } else if (max > min) {
    Symbol tail = Optional(s);
    for (int64_t i = min + 1; i < max; ++i) {
      Sequence more = s;
      more.push_back(tail);
      tail = Optional(std::move(more));
    }
    out.push_back(tail);
  }
  return Ref(AddRule({std::move(out)}));
}

Grammar GrammarBuilder::Build(uint32_t root) const {
  const size_t n = rules_.size();
  for (size_t r = 0; r < n; ++r) {
    if (!defined_[r])
      throw Error(ErrorCode::kInternal, "grammar: rule " + std::to_string(r) + " never defined");
  }
  if (root >= n) throw Error(ErrorCode::kInternal, "grammar: no root rule");
  // Which rules can match nothing (a fixpoint).
  std::vector<bool> nullable(n, false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = 0; r < n; ++r) {
      if (nullable[r]) continue;
      for (const Sequence& alt : rules_[r]) {
        bool all = true;
        for (const Symbol& s : alt) all = all && s.kind == Symbol::kRule && nullable[s.index];
        if (all) {
          nullable[r] = changed = true;
          break;
        }
      }
    }
  }
  // No rule may reach itself without consuming a byte: matching it would
  // expand forever (left recursion; a repeated empty match).
  std::vector<int> state(n, 0);  // 0 unseen, 1 on the path, 2 done
  const std::function<void(size_t)> visit = [&](size_t r) {
    state[r] = 1;
    for (const Sequence& alt : rules_[r]) {
      for (const Symbol& s : alt) {
        if (s.kind != Symbol::kRule) break;
        if (state[s.index] == 1)
          throw Error(ErrorCode::kInternal, "grammar: rule " + std::to_string(s.index) +
                                                " reaches itself without consuming a byte");
        if (state[s.index] == 0) visit(s.index);
        if (!nullable[s.index]) break;
      }
    }
    state[r] = 2;
  };
  for (size_t r = 0; r < n; ++r) {
    if (state[r] == 0) visit(r);
  }

  Grammar g;
  g.root_ = root;
  g.byte_sets_ = byte_sets_;
  g.control_tokens_ = control_tokens_;
  g.rule_first_.push_back(0);
  for (const auto& alternatives : rules_) {
    for (const Sequence& alt : alternatives) {
      g.starts_.push_back(static_cast<uint32_t>(g.symbols_.size()));
      g.symbols_.insert(g.symbols_.end(), alt.begin(), alt.end());
      g.symbols_.push_back({Symbol::kEnd, 0});
    }
    g.rule_first_.push_back(static_cast<uint32_t>(g.starts_.size()));
  }
  return g;
}

}  // namespace orcd::structured
