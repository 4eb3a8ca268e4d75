// Caching a finished answer for a conversation's next turn (prefix
// caching): a sequence whose request ended evaluates its generated tokens
// again, as prompt tokens, into the blocks it holds, so that they are
// registered in the prefix cache with the bits a cold prompt gives. See
// BatchScheduler::Sequence::fill.
#include <algorithm>

#include "host/generation/batch_scheduler.h"
#include "host/generation/scheduled_sequence.h"

namespace orcd {

bool BatchScheduler::StartFill(Sequence& seq) {
  if (!options_.cache_answers || seq.fill || seq.engine_seq < 0 || seq.error || seq.recompute) {
    return false;
  }
  // Only whole blocks are cached: the generated tokens up to the last
  // block boundary, if that is past the prompt.
  const int64_t bt = engine_.kv_pool().block_tokens;
  const auto evaluated = static_cast<int64_t>(seq.history.size());
  const int64_t n = evaluated / bt * bt - seq.history_prompt;
  if (n <= 0 || !engine_.RewindToPrompt(seq.engine_seq, seq.history_prompt)) return false;
  const auto first = seq.history.begin() + seq.history_prompt;
  seq.pending.assign(first, first + n);
  seq.history.resize(static_cast<size_t>(seq.history_prompt));
  seq.prompt_tokens = n;
  seq.fed = 0;
  seq.evaluated = seq.history_prompt;
  seq.sampling = false;
  seq.stop_check = nullptr;
  seq.fill = true;
  seq.asked = true;
  return true;
}

bool BatchScheduler::DropFill(size_t from) {
  for (size_t i = running_.size(); i-- > from;) {
    if (!running_[i]->fill) continue;
    engine_.CloseSequence(running_[i]->engine_seq);
    running_[i]->engine_seq = -1;
    running_[i]->asked = false;
    running_.erase(running_.begin() + static_cast<int64_t>(i));
    return true;
  }
  return false;
}

bool BatchScheduler::ContinuesAFill(const Sequence& seq) const {
  if (seq.recompute || seq.evaluated != 0) return false;
  const auto prompt = static_cast<size_t>(seq.prompt_tokens);
  for (const auto& f : running_) {
    if (!f->fill) continue;
    // The fill's whole sequence: the prompt before it (the history but what
    // the fill evaluated so far) and its answer (pending).
    const size_t head = f->history.size() - f->fed;
    if (prompt < head + f->pending.size()) continue;
    if (std::equal(f->history.begin(), f->history.begin() + static_cast<int64_t>(head),
                   seq.pending.begin()) &&
        std::equal(f->pending.begin(), f->pending.end(),
                   seq.pending.begin() + static_cast<int64_t>(head))) {
      return true;
    }
  }
  return false;
}

}  // namespace orcd
