#include "step_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#include "golden.h"

namespace orcd::testing {

std::vector<std::vector<int32_t>> RandomPrompts(int64_t vocab, uint32_t seed,
                                                std::initializer_list<int> lengths) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> id(
      1, static_cast<int32_t>(std::min<int64_t>(vocab, 250)) - 1);
  std::vector<std::vector<int32_t>> prompts;
  for (const int len : lengths) {
    std::vector<int32_t> p(static_cast<size_t>(len));
    for (int32_t& t : p) t = id(rng);
    prompts.push_back(std::move(p));
  }
  return prompts;
}

void AppendGreedy(SeqRun& run, std::span<const float> row) {
  run.logits.insert(run.logits.end(), row.begin(), row.end());
  run.tokens.push_back(Argmax(row));
}

SeqRun SoloRun(engine::Engine& e, const std::vector<int32_t>& prompt, int generated) {
  const int seq = e.OpenSequence();
  EXPECT_GE(seq, 0);
  SeqRun run;
  EXPECT_TRUE(e.Reserve(seq, static_cast<int64_t>(prompt.size()) + generated));
  engine::StepPart part{seq, prompt, static_cast<int64_t>(prompt.size())};
  AppendGreedy(run, e.Step({&part, 1}));
  for (int i = 1; i < generated; ++i) {
    const int32_t token = run.tokens.back();
    engine::StepPart next{seq, {&token, 1}, 0};
    AppendGreedy(run, e.Step({&next, 1}));
  }
  e.CloseSequence(seq);
  return run;
}

void ExpectSoloBits(const std::vector<SeqRun>& together, const std::vector<SeqRun>& solo) {
  ASSERT_EQ(together.size(), solo.size());
  for (size_t i = 0; i < solo.size(); ++i) {
    SCOPED_TRACE("sequence " + std::to_string(i));
    ASSERT_EQ(together[i].tokens, solo[i].tokens);
    ASSERT_EQ(together[i].logits.size(), solo[i].logits.size());
    EXPECT_EQ(0, std::memcmp(together[i].logits.data(), solo[i].logits.data(),
                             solo[i].logits.size() * sizeof(float)))
        << "logits differ from the solo run";
  }
}

}  // namespace orcd::testing
