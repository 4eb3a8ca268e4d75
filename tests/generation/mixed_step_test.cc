// The CPU's mixed step (mixed_step.h): every decoding sequence's token, then
// waiting prompts one after another, short ones together, within the token
// budget.
#include "host/generation/mixed_step.h"

#include <gtest/gtest.h>

#include <vector>

namespace orcd {
namespace {

std::vector<std::pair<size_t, int64_t>> Choose(const std::vector<StepCandidate>& c,
                                               int64_t budget = 512, int64_t prompt_batch = 32) {
  std::vector<std::pair<size_t, int64_t>> out;
  for (const StepTake& t :
       ChooseMixedStep(c, budget, prompt_batch, [](size_t, int64_t n) { return n; })) {
    out.emplace_back(t.index, t.tokens);
  }
  return out;
}

using Takes = std::vector<std::pair<size_t, int64_t>>;

TEST(MixedStep, TwoWaitingPromptsGoOneAfterTheOther) {
  // Decoding sequences 0 and 3, prompts of 120 and 90 tokens at 1 and 2: the
  // step takes both tokens and the first prompt only, so that prompt's first
  // token does not wait for the second's 90.
  const std::vector<StepCandidate> c = {{true, 1}, {true, 120}, {true, 90}, {true, 1}};
  EXPECT_EQ(Choose(c), (Takes{{0, 1}, {3, 1}, {1, 120}}));
  // With prompt_batch_tokens as large as the budget: all of it, as before.
  EXPECT_EQ(Choose(c, 512, 512), (Takes{{0, 1}, {3, 1}, {1, 120}, {2, 90}}));
}

TEST(MixedStep, ShortPromptsShareAStep) {
  // 10 and 15 tokens are below 32 together: the third prompt joins too; the
  // fourth does not (the step holds 45 prompt tokens by then).
  const std::vector<StepCandidate> c = {{true, 10}, {true, 15}, {true, 40}, {true, 8}};
  EXPECT_EQ(Choose(c), (Takes{{0, 10}, {1, 15}, {2, 40}}));
}

TEST(MixedStep, AnAnswerBeingCachedTakesOnlyAStepNobodyElseNeeds) {
  // 0 is caching its answer (admitted first), 1 a newcomer's prompt, 2 a
  // decoding sequence: the fill waits (it would delay both for a turn that
  // may never come).
  const std::vector<StepCandidate> c = {{true, 40, true}, {true, 60, false}, {true, 1, false}};
  EXPECT_EQ(Choose(c), (Takes{{2, 1}, {1, 60}}));
  const std::vector<StepCandidate> beside_decode = {{true, 40, true}, {true, 1, false}};
  EXPECT_EQ(Choose(beside_decode), (Takes{{1, 1}}));
  // Alone (the others idle), in chunks of prompt_batch_tokens: a request that
  // arrives meanwhile waits one short step at most.
  const std::vector<StepCandidate> alone = {{true, 40, true}, {false, 1, false}};
  EXPECT_EQ(Choose(alone), (Takes{{0, 32}}));
  EXPECT_EQ(Choose(alone, 512, 64), (Takes{{0, 40}}));
  // Two fills share the idle step within that bound.
  const std::vector<StepCandidate> two = {{true, 20, true}, {true, 30, true}};
  EXPECT_EQ(Choose(two), (Takes{{0, 20}, {1, 12}}));
}

TEST(MixedStep, TheBudgetBoundsTheStepAndNobodyIdleIsTaken) {
  const std::vector<StepCandidate> c = {{false, 1}, {true, 1}, {true, 600}, {false, 50}};
  EXPECT_EQ(Choose(c, 512), (Takes{{1, 1}, {2, 511}}));
  EXPECT_EQ(Choose(c, 1), (Takes{{1, 1}}));
}

TEST(MixedStep, APromptStepCutShortEndsWhereItMust) {
  const std::vector<StepCandidate> c = {{true, 100}, {true, 20}};
  const auto cut = [](size_t i, int64_t n) { return i == 0 ? std::min<int64_t>(n, 16) : n; };
  Takes out;
  for (const StepTake& t : ChooseMixedStep(c, 512, 32, cut)) out.emplace_back(t.index, t.tokens);
  // 16 tokens (a cut at a cached block's end) leave room under 32: the next
  // prompt joins.
  EXPECT_EQ(out, (Takes{{0, 16}, {1, 20}}));
}

TEST(MixedStep, BesideGeneratedTokensAPromptTakesOnlyWhatTheTimeTargetAllows) {
  // Decoding 0 and 2, prompts of 300 and 10 tokens: the bound for two
  // generated tokens is 40 prompt tokens; 40 of the first prompt, then the
  // step is full.
  const std::vector<StepCandidate> c = {{true, 1}, {true, 300}, {true, 1}, {true, 10}};
  int64_t asked_for = -1;
  const auto beside = [&](int64_t decode_tokens) {
    asked_for = decode_tokens;
    return int64_t{40};
  };
  const auto keep = [](size_t, int64_t n) { return n; };
  Takes out;
  for (const StepTake& t : ChooseMixedStep(c, 512, 32, keep, beside))
    out.emplace_back(t.index, t.tokens);
  EXPECT_EQ(out, (Takes{{0, 1}, {2, 1}, {1, 40}}));
  EXPECT_EQ(asked_for, 2);
  // Short prompts still share the step within the bound.
  const std::vector<StepCandidate> shorts = {{true, 1}, {true, 12}, {true, 20}, {true, 30}};
  out.clear();
  for (const StepTake& t : ChooseMixedStep(shorts, 512, 64, keep, beside))
    out.emplace_back(t.index, t.tokens);
  EXPECT_EQ(out, (Takes{{0, 1}, {1, 12}, {2, 20}, {3, 8}}));
  // Nobody generating: no bound but the budget (a prompt alone delays no one).
  const std::vector<StepCandidate> alone = {{true, 300}};
  out.clear();
  for (const StepTake& t : ChooseMixedStep(alone, 512, 32, keep, beside))
    out.emplace_back(t.index, t.tokens);
  EXPECT_EQ(out, (Takes{{0, 300}}));
}

}  // namespace
}  // namespace orcd
