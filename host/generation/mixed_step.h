// What one mixed step evaluates (BatchScheduler's
// GatherStep): every decoding sequence's next token, then prompt chunks in
// admission order while the step's token budget lasts, another sequence's chunk
// only while the step holds fewer than `prompt_batch_tokens` prompt tokens.
// Answers being cached for a next turn (fills) are background work that
// nobody waits for: they take only a step nobody else's tokens are in, at
// most `prompt_batch_tokens` of them, so a request that arrives waits for one
// short step at most and a busy engine spends nothing on them (on a
// compute-bound CPU a fill costs as much as the prompt it may save). A fill
// a waiting request continues is not background: the scheduler passes it as
// a prompt. Waiting prompts are
// thus evaluated one after another: the first to come gets its first token after its own prompt,
// not after all of theirs, at the same throughput (a prompt token costs the same in any step, and
// each step still carries every decoding sequence's token); short prompts share a step, where the
// step's fixed cost (reading every weight once) matters. Beside decoding sequences a step may
// also be held to fewer prompt tokens (`prompt_beside`: the scheduler's step time target), since
// that step is the gap between two of their tokens.
#ifndef ORCD_HOST_GENERATION_MIXED_STEP_H_
#define ORCD_HOST_GENERATION_MIXED_STEP_H_

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace orcd {

struct StepCandidate {
  bool asked = false;  // has tokens waiting to be evaluated
  int64_t left = 0;    // how many (1: a generated token, or a prompt's last)
  bool fill = false;   // background: an answer evaluated again to be cached (Sequence::fill)
};

struct StepTake {
  size_t index = 0;  // into the candidates
  int64_t tokens = 0;
};

// The candidates' takes, decoding ones first. `cut(index, n)`: how many of n
// tokens the candidate may take in this step (a prompt step may have to end
// at a given position: BatchScheduler::UpToPromptStop). `prompt_beside(d)`,
// when given: the prompt tokens a step may hold beside the d generated
// tokens it took (d > 0), so that their next token is not held up by a
// long chunk (BatchScheduler's step time target).
std::vector<StepTake> ChooseMixedStep(
    std::span<const StepCandidate> candidates, int64_t max_batched_tokens,
    int64_t prompt_batch_tokens, const std::function<int64_t(size_t, int64_t)>& cut,
    const std::function<int64_t(int64_t)>& prompt_beside = nullptr);

}  // namespace orcd

#endif  // ORCD_HOST_GENERATION_MIXED_STEP_H_
