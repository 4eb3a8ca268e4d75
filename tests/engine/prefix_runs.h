// Sequences run with and without prefix caching (Engine::MatchPrefix), for
// the prefix-cache tests of the CPU and the CUDA backends.
#ifndef ORCD_TESTS_ENGINE_PREFIX_RUNS_H_
#define ORCD_TESTS_ENGINE_PREFIX_RUNS_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "host/engine/engine.h"

namespace orcd::testing {

struct PrefixRun {
  std::vector<int32_t> tokens;  // generated, greedy
  std::vector<float> logits;    // the prompt's last row, then each decoded token's
  int64_t matched = 0;          // positions MatchPrefix mapped
  uint64_t evaluated = 0;       // tokens the engine ran
};

// One sequence: maps what the cache holds (when `match`, with `salt`),
// evaluates the rest of the prompt in steps of at most `chunk` tokens (0:
// one step), then `generate` greedy tokens one step each; closed after.
PrefixRun RunPrompt(engine::Engine& e, std::span<const int32_t> prompt, int generate, bool match,
                    uint64_t salt = 0, int64_t chunk = 0);

// n ids in [1, min(vocab, 250)), a different sequence per seed.
std::vector<int32_t> CyclicPrompt(int64_t n, int32_t seed, int64_t vocab);

// The same tokens and the same logits, bit for bit.
void ExpectSameBits(const PrefixRun& a, const PrefixRun& b, const std::string& what);

}  // namespace orcd::testing

#endif  // ORCD_TESTS_ENGINE_PREFIX_RUNS_H_
