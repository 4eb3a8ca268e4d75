#include "prefix_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "golden.h"

namespace orcd::testing {
namespace {

uint64_t TokensRun(engine::Engine& e) {
  uint64_t n = 0;
  for (const auto& phase : e.counters().phases) n += phase.tokens;
  return n;
}

}  // namespace

PrefixRun RunPrompt(engine::Engine& e, std::span<const int32_t> prompt, int generate, bool match,
                    uint64_t salt, int64_t chunk) {
  PrefixRun run;
  const int seq = e.OpenSequence();
  EXPECT_GE(seq, 0);
  if (match) run.matched = e.MatchPrefix(seq, prompt, salt);
  EXPECT_TRUE(e.Reserve(seq, static_cast<int64_t>(prompt.size()) + generate));
  const uint64_t before = TokensRun(e);
  std::span<const int32_t> rest = prompt.subspan(static_cast<size_t>(run.matched));
  std::span<const float> row;
  while (!rest.empty()) {
    const size_t n = chunk > 0 ? std::min(rest.size(), static_cast<size_t>(chunk)) : rest.size();
    engine::StepPart part{seq, rest.first(n), static_cast<int64_t>(n)};
    part.logits = n == rest.size();
    row = e.Step({&part, 1});
    rest = rest.subspan(n);
  }
  for (int i = 0;; ++i) {
    run.logits.insert(run.logits.end(), row.begin(), row.end());
    if (i == generate) break;
    run.tokens.push_back(Argmax(row));
    engine::StepPart next{seq, {&run.tokens.back(), 1}, 0};
    row = e.Step({&next, 1});
  }
  run.evaluated = TokensRun(e) - before;
  e.CloseSequence(seq);
  return run;
}

std::vector<int32_t> CyclicPrompt(int64_t n, int32_t seed, int64_t vocab) {
  std::vector<int32_t> p(static_cast<size_t>(n));
  const int64_t ids = std::min<int64_t>(vocab, 250) - 1;
  for (size_t i = 0; i < p.size(); ++i)
    p[i] = static_cast<int32_t>(1 + (i * 37 + static_cast<size_t>(seed) * 101) % ids);
  return p;
}

void ExpectSameBits(const PrefixRun& a, const PrefixRun& b, const std::string& what) {
  ASSERT_EQ(a.logits.size(), b.logits.size()) << what;
  EXPECT_EQ(a.tokens, b.tokens) << what;
  EXPECT_EQ(std::memcmp(a.logits.data(), b.logits.data(), a.logits.size() * sizeof(float)), 0)
      << what << ": the logits differ from the cold run's";
}

}  // namespace orcd::testing
