// Attention's softmax over one query's scores, vectorized: the exponential
// is a polynomial of its own (exp2 of the rounded quotient by ln 2 times a
// degree-6 polynomial of the rest: Cephes' expf, max error ~1 ulp) and the
// sum runs in eight lanes, where std::exp per score and one running sum took
// ~8 % of a 512-token prompt (Qwen2.5-0.5B shape, 2-core Zen 5 VM). The AVX2
// and portable forms give the same bits: the same operations per element
// (fused where written), the same eight partial sums added in the same tree.
// A query's result depends only on its scores and their count, never on the
// batch around it.
#ifndef ORCD_HOST_ENGINE_CPU_SOFTMAX_SCORES_H_
#define ORCD_HOST_ENGINE_CPU_SOFTMAX_SCORES_H_

#include <cstdint>

namespace orcd::engine::cpu {

// The exponential of every x <= 0 as SoftmaxScores takes it (inputs below
// kMinExpArg are taken as kMinExpArg: e^-87 ~ 1.6e-38, nothing beside the
// maximum's 1).
inline constexpr float kMinExpArg = -87.0f;
float ScoreExp(float x);

// s[j] = e^(a_j - m) / (sum_k e^(a_k - m) + e^(sink - m)) for j < n, where
// a_j = scale * s[j] (or softcap * tanh(scale * s[j] / softcap) when softcap
// > 0), m = max(max_j a_j, sink), and the sink's terms only when sink is
// given (an attention sink joins the denominator only).
void SoftmaxScores(float* s, int64_t n, float scale, float softcap, const float* sink);

// SoftmaxScores in portable C++ whatever the CPU (for the test that both
// forms give the same bits).
void SoftmaxScoresPortable(float* s, int64_t n, float scale, float softcap, const float* sink);

}  // namespace orcd::engine::cpu

#endif  // ORCD_HOST_ENGINE_CPU_SOFTMAX_SCORES_H_
