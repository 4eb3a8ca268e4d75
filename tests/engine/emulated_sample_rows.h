// One launch of the device sampler's kernel on the emulator
// (EmulatedOpKernels().sample_rows), for the kernel-level tests: the rows'
// logits back to back (penalized in place, as on a device), the scratch the
// kernel needs sized here.
#ifndef ORCD_TESTS_ENGINE_EMULATED_SAMPLE_ROWS_H_
#define ORCD_TESTS_ENGINE_EMULATED_SAMPLE_ROWS_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "host/engine/cuda/op_kernels.h"

namespace orcd::testing {

// Each row's pick (-1 where the kernel wrote none). `penalized`: the rows'
// penalized ids (SampleRow::penalized_offset into it); `logprobs`: one
// RowLogprobs a row, or null when no row asks; `allowed`: the rows' allowed-id
// bits (SampleRow::allowed_offset into it), or null.
inline std::vector<int32_t> SampleRowsOnTheEmulator(
    std::vector<float>& logits, int64_t vocab, const std::vector<engine::cuda::SampleRow>& rows,
    std::vector<int32_t> penalized, engine::cuda::RowLogprobs* logprobs = nullptr,
    const uint64_t* allowed = nullptr) {
  int64_t padded = 1;
  while (padded < vocab) padded <<= 1;
  penalized.push_back(0);  // never empty
  const auto n = static_cast<int64_t>(rows.size());
  std::vector<float> keys(static_cast<size_t>(padded * n)), raw(penalized.size());
  std::vector<int32_t> ids(static_cast<size_t>(padded * n)), out(rows.size(), -1);
  engine::cuda::SampleRowsArgs a{};
  a.logits = logits.data();
  a.vocab = vocab;
  a.padded = padded;
  a.keys = keys.data();
  a.ids = ids.data();
  a.rows = rows.data();
  a.penalized = penalized.data();
  a.out = out.data();
  a.n_rows = n;
  a.logprobs = logprobs;
  a.raw_penalized = raw.data();
  a.allowed = allowed;
  EXPECT_EQ(engine::cuda::EmulatedOpKernels().sample_rows(a, nullptr), 0);
  return out;
}

}  // namespace orcd::testing

#endif  // ORCD_TESTS_ENGINE_EMULATED_SAMPLE_ROWS_H_
