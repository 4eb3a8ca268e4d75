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

std::vector<SeqRun> ChunkedTogether(engine::Engine& e,
                                    const std::vector<std::vector<int32_t>>& prompts, int generated,
                                    int64_t chunk, bool preempt, bool one_kind_per_part) {
  struct State {
    int seq = -1;
    std::vector<int32_t> feed;  // tokens still to evaluate before the next sample
    int64_t prompt_left = 0;    // of feed, prompt tokens
    bool done = false;
  };
  std::vector<State> states(prompts.size());
  std::vector<SeqRun> runs(prompts.size());
  bool preempted = false;
  for (int step = 0; step < 200; ++step) {
    std::vector<engine::StepPart> parts;
    std::vector<size_t> owners;
    for (size_t i = 0; i < prompts.size(); ++i) {
      State& s = states[i];
      if (s.done || static_cast<int>(i) / 2 > step) continue;
      if (s.seq < 0) {
        s.seq = e.OpenSequence();
        EXPECT_GE(s.seq, 0);
        EXPECT_TRUE(e.Reserve(s.seq, static_cast<int64_t>(prompts[i].size()) + generated));
        s.feed = prompts[i];
        s.prompt_left = static_cast<int64_t>(s.feed.size());
      }
      int64_t n = std::min<int64_t>(chunk, static_cast<int64_t>(s.feed.size()));
      if (one_kind_per_part) n = s.prompt_left > 0 ? std::min(n, s.prompt_left) : 1;
      engine::StepPart part{s.seq, std::span<const int32_t>(s.feed).first(static_cast<size_t>(n)),
                            std::min(n, s.prompt_left)};
      part.logits = n == static_cast<int64_t>(s.feed.size());
      parts.push_back(part);
      owners.push_back(i);
    }
    if (parts.empty()) break;
    const std::span<const float> logits = e.Step(parts);
    const auto vocab = static_cast<size_t>(e.info().vocab);
    size_t row = 0;
    for (size_t k = 0; k < parts.size(); ++k) {
      State& s = states[owners[k]];
      const auto n = static_cast<int64_t>(parts[k].tokens.size());
      s.feed.erase(s.feed.begin(), s.feed.begin() + n);
      s.prompt_left = std::max<int64_t>(0, s.prompt_left - n);
      if (!parts[k].logits) continue;
      SeqRun& run = runs[owners[k]];
      AppendGreedy(run, logits.subspan(row++ * vocab, vocab));
      if (static_cast<int>(run.tokens.size()) == generated) {
        e.CloseSequence(s.seq);
        s.done = true;
      } else if (preempt && owners[k] == 3 && run.tokens.size() == 3 && !preempted) {
        preempted = true;  // drop its KV: recompute everything it has evaluated
        e.CloseSequence(s.seq);
        s.seq = e.OpenSequence();
        EXPECT_TRUE(e.Reserve(s.seq, static_cast<int64_t>(prompts[3].size()) + generated));
        s.feed = prompts[3];
        s.feed.insert(s.feed.end(), run.tokens.begin(), run.tokens.end());
        s.prompt_left = static_cast<int64_t>(prompts[3].size());
      } else {
        s.feed = {run.tokens.back()};
        s.prompt_left = 0;
      }
    }
  }
  if (preempt) {
    EXPECT_TRUE(preempted);
  }
  return runs;
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
