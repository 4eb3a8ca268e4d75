// The scheduler's admission of waiting sequences (in order, each with the
// blocks its pending tokens need, mapping what the prefix cache holds) and
// preemption (the most recently admitted sequence gives its blocks back and
// recomputes later).
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "host/common/logger.h"
#include "host/generation/batch_scheduler.h"
#include "host/generation/scheduled_sequence.h"

namespace orcd {

void BatchScheduler::CloseAndAdmit() {
  for (const auto& seq : closing_) {
    if (StartFill(*seq)) continue;  // stays running until its answer is cached
    const auto it = std::find(running_.begin(), running_.end(), seq);
    if (it != running_.end()) running_.erase(it);
    if (seq->engine_seq >= 0) engine_.CloseSequence(seq->engine_seq);
    seq->engine_seq = -1;
  }
  closing_.clear();
  fill_awaited_ = false;
  // In order: a request never overtakes an earlier one that waits for blocks.
  // A sequence is admitted once it asks (its prompt's length is known then)
  // and blocks for what it will hold after its pending tokens are free.
  while (!waiting_.empty() && waiting_.front()->asked) {
    const std::shared_ptr<Sequence>& seq = waiting_.front();
    // The next turn of a conversation whose answer is being cached waits
    // for it: it would compute the same tokens again otherwise.
    if (ContinuesAFill(*seq)) {
      fill_awaited_ = true;
      break;
    }
    const int id = engine_.OpenSequence();
    if (id < 0) {
      if (DropFill()) continue;  // a request comes before caching an answer
      break;
    }
    const int64_t cached = MapCachedPrefix(*seq, id);
    if (!engine_.Reserve(id, Needed(*seq))) {
      engine_.CloseSequence(id);
      UnmapCachedPrefix(*seq, cached);
      if (DropFill()) continue;
      break;
    }
    seq->engine_seq = id;
    if (seq->queued_ms.load() < 0) {
      seq->queued_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - seq->opened)
              .count();
    }
    running_.push_back(seq);
    waiting_.pop_front();
  }
}

int64_t BatchScheduler::MapCachedPrefix(Sequence& seq, int id) {
  // A fresh sequence's prompt only: a preempted one replays its history
  // (generated tokens too) and recomputes it.
  if (seq.recompute || seq.evaluated != 0 || seq.fed != 0 || seq.prompt_tokens <= 0) return 0;
  const std::span<const int32_t> prompt(seq.pending.data(), static_cast<size_t>(seq.prompt_tokens));
  const int64_t cached = engine_.MatchPrefix(id, prompt, seq.cache_salt);
  // As if a step had evaluated them: the rest of the prompt comes next.
  seq.history.insert(seq.history.end(), prompt.begin(), prompt.begin() + cached);
  seq.history_prompt += cached;
  seq.fed = static_cast<size_t>(cached);
  seq.evaluated = cached;
  seq.length = cached;
  seq.cached_tokens = cached;
  return cached;
}

void BatchScheduler::UnmapCachedPrefix(Sequence& seq, int64_t cached) {
  if (cached == 0) return;
  seq.cached_tokens = 0;
  seq.history.clear();
  seq.history_prompt = 0;
  seq.fed = 0;
  seq.evaluated = 0;
  seq.length = 0;
}

int64_t BatchScheduler::Needed(const Sequence& seq) {
  const auto left = static_cast<int64_t>(seq.pending.size() - seq.fed);
  return (seq.recompute ? static_cast<int64_t>(seq.history.size()) : seq.evaluated) + left;
}

void BatchScheduler::ReplayHistory(Sequence& seq) {
  // The history as prompt tokens then generated ones, then what was still
  // pending: prompt kinds stay a prefix (a sequence generates only after its
  // whole prompt), so every token keeps its kind and therefore its bits.
  std::vector<int32_t> replay = std::move(seq.history);
  const int64_t pending_prompt =
      std::max<int64_t>(0, seq.prompt_tokens - static_cast<int64_t>(seq.fed));
  const int64_t prompt = seq.history_prompt + pending_prompt;
  replay.insert(replay.end(), seq.pending.begin() + static_cast<int64_t>(seq.fed),
                seq.pending.end());
  seq.pending = std::move(replay);
  seq.prompt_tokens = prompt;
  seq.fed = 0;
  seq.history.clear();
  seq.history_prompt = 0;
  seq.evaluated = 0;
  seq.recompute = false;
}

void BatchScheduler::Preempt(size_t index) {
  const std::shared_ptr<Sequence> victim = running_[index];
  running_.erase(running_.begin() + static_cast<int64_t>(index));
  engine_.CloseSequence(victim->engine_seq);
  victim->engine_seq = -1;
  if (victim->fill) {  // an answer being cached is dropped, never recomputed
    victim->asked = false;
    return;
  }
  victim->recompute = true;
  waiting_.push_front(victim);
  ++preemptions_;
  LogInfo("scheduler", "a sequence was preempted for KV blocks; it will recompute",
          {{"positions", std::to_string(victim->history.size())}});
}

BatchScheduler::Grow BatchScheduler::ReserveOrPreempt(size_t index) {
  while (!engine_.Reserve(running_[index]->engine_seq, Needed(*running_[index]))) {
    // An answer being cached after this one gives its blocks first. Then the
    // most recently admitted sequence gives its blocks back and waits,
    // first in line, to recompute what it had: another one, or this one.
    if (DropFill(index + 1)) continue;
    if (index + 1 < running_.size()) {
      Preempt(running_.size() - 1);
    } else if (index > 0) {
      Preempt(index);
      return Grow::kPreempted;
    } else {
      return Grow::kCannotFit;
    }
  }
  return Grow::kReserved;
}

}  // namespace orcd
