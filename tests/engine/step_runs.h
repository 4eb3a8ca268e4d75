// Sequences run through Engine::Step for the batch-invariance tests (CPU and
// CUDA): random prompts, greedy tokens and their logits rows, a solo run.
#ifndef ORCD_TESTS_ENGINE_STEP_RUNS_H_
#define ORCD_TESTS_ENGINE_STEP_RUNS_H_

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "host/engine/engine.h"

namespace orcd::testing {

// One sequence's greedy tokens and the logits row each was picked from.
struct SeqRun {
  std::vector<int32_t> tokens;
  std::vector<float> logits;  // [tokens][vocab]
};

// Prompts of the given lengths, ids drawn from [1, min(vocab, 250)) by a
// generator seeded with `seed`.
std::vector<std::vector<int32_t>> RandomPrompts(int64_t vocab, uint32_t seed,
                                                std::initializer_list<int> lengths);

// Keeps `row` and its greedy token.
void AppendGreedy(SeqRun& run, std::span<const float> row);

// One sequence alone: its prompt as one step, then `generated` - 1 steps of
// one token; the sequence is closed after.
SeqRun SoloRun(engine::Engine& e, const std::vector<int32_t>& prompt, int generated);

// All at once: sequence i starts at step i / 2, prompts go in chunks of
// `chunk` tokens beside the others' decode tokens, in the sequences' order
// (so a step's rows alternate kinds). With `preempt`, sequence 3 loses its
// KV after its third generated token and recomputes prompt + generated
// tokens (the latter as generated tokens) before going on. With
// `one_kind_per_part` (a CUDA step), a part is prompt tokens or one
// generated token: a chunk stops at the prompt's end and a recomputed
// sequence's generated tokens go one per step.
std::vector<SeqRun> ChunkedTogether(engine::Engine& e,
                                    const std::vector<std::vector<int32_t>>& prompts, int generated,
                                    int64_t chunk, bool preempt, bool one_kind_per_part = false);

// Each run in `together` has its solo run's tokens and logits, bit for bit.
void ExpectSoloBits(const std::vector<SeqRun>& together, const std::vector<SeqRun>& solo);

}  // namespace orcd::testing

#endif  // ORCD_TESTS_ENGINE_STEP_RUNS_H_
