// Sampling on the device: a run's rows, each with its own request.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "host/common/status.h"
#include "host/engine/cuda/cuda_backend.h"
#include "host/sampling/token_logprobs.h"

namespace orcd::engine::cuda {

void CudaBackend::FinishRunSampleRows(std::span<const SampledRow> rows, int64_t vocab,
                                      std::span<int32_t> out) {
  const auto n = static_cast<int64_t>(rows.size());
  if (n == 0) return;
  if (n > sample_rows_capacity_ || out.size() < rows.size()) {
    throw Error(ErrorCode::kInternal, "sampling " + std::to_string(n) +
                                          " rows; the backend takes " +
                                          std::to_string(sample_rows_capacity_));
  }
  int64_t n_penalized_all = 0;
  bool any_logprobs = false;
  for (int64_t i = 0; i < n; ++i) {
    const SampleRequest& r = rows[static_cast<size_t>(i)].request;
    const auto n_penalized = static_cast<int64_t>(r.penalized.size());
    if (n_penalized > penalized_capacity_) {
      throw Error(ErrorCode::kInvalidArgument, "more penalized tokens than the context holds");
    }
    const bool penalize = r.repetition_penalty != 1.0 && n_penalized > 0;
    SampleRow& row = staged_sample_rows_[i];
    row.logits_offset = rows[static_cast<size_t>(i)].offset;
    row.penalized_offset = n_penalized_all;
    row.n_penalized = penalize ? n_penalized : 0;
    if (penalize) {
      std::memcpy(staged_penalized_ + n_penalized_all, r.penalized.data(),
                  r.penalized.size_bytes());
      n_penalized_all += n_penalized;
    }
    row.penalty = static_cast<float>(r.repetition_penalty);
    // 1/T past FLT_MAX (T below ~3e-39) is the greedy limit, as on the CPU.
    const float inv_t = r.temperature > 0.0 ? static_cast<float>(1.0 / r.temperature) : 0.0f;
    row.inv_temperature = std::isfinite(inv_t) ? inv_t : 0.0f;
    row.top_k = r.top_k;
    row.top_p = r.top_p;
    row.min_p = r.min_p;
    row.uniform = r.uniform;
    row.top_logprobs = r.logprobs != nullptr && r.top_logprobs >= 0
                           ? std::min(r.top_logprobs, kRowLogprobsMax)
                           : -1;
    any_logprobs = any_logprobs || row.top_logprobs >= 0;
    row.allowed_offset = r.allowed.empty() ? -1 : StageAllowed(i, r.allowed, vocab);
  }
  runtime_->CopyToDevice(sample_rows_.get(), staged_sample_rows_,
                         static_cast<uint64_t>(n) * sizeof(SampleRow));
  if (n_penalized_all > 0) {
    runtime_->CopyToDevice(penalized_.get(), staged_penalized_,
                           static_cast<uint64_t>(n_penalized_all) * 4);
  }
  if (staged_allowed_rows_ > 0) {
    runtime_->CopyToDevice(allowed_.get(), staged_allowed_.get<uint64_t>(),
                           static_cast<uint64_t>(staged_allowed_rows_) * allowed_words_ * 8);
    staged_allowed_rows_ = 0;
  }
  SampleRowsArgs a{};
  a.logits = logits_.get<float>();
  a.vocab = vocab;
  a.padded = sample_padded_;
  a.keys = sample_keys_.get<float>();
  a.ids = sample_ids_.get<int32_t>();
  a.rows = sample_rows_.get<SampleRow>();
  a.penalized = penalized_.get<int32_t>();
  a.out = positions_.get<int32_t>();  // free once the run's kernels are queued
  a.n_rows = n;
  a.logprobs = row_logprobs_.get<RowLogprobs>();
  a.raw_penalized = raw_penalized_.get<float>();
  a.allowed = allowed_.get<uint64_t>();
  runtime_->Check(kernels().sample_rows(a, stream()), "sample");
  runtime_->CopyToHost(staged_result_, a.out, static_cast<uint64_t>(n) * 4);  // waits
  staging_in_flight_ = false;
  std::copy_n(staged_result_, n, out.begin());
  if (!any_logprobs) return;
  runtime_->CopyToHost(staged_logprobs_, a.logprobs,
                       static_cast<uint64_t>(n) * sizeof(RowLogprobs));
  for (int64_t i = 0; i < n; ++i) {
    const SampleRequest& r = rows[static_cast<size_t>(i)].request;
    if (staged_sample_rows_[i].top_logprobs < 0) continue;
    const RowLogprobs& lp = staged_logprobs_[i];
    TokenLogprobs& result = *r.logprobs;
    result.chosen = LogprobOf(out[static_cast<size_t>(i)], lp.chosen_logit, lp.log_total);
    result.top.clear();
    for (int k = 0; k < lp.n_top && k < kRowLogprobsMax; ++k) {
      result.top.push_back(LogprobOf(lp.top_ids[k], lp.top_logits[k], lp.log_total));
    }
  }
}

int64_t CudaBackend::StageAllowed(int64_t row, std::span<const uint64_t> allowed, int64_t vocab) {
  const auto words = static_cast<uint64_t>((vocab + 63) / 64);
  if (allowed_words_ != words) {  // first use (about 19 KiB a row at Qwen's vocabulary)
    allowed_ = Make(words * 8 * static_cast<uint64_t>(sample_rows_capacity_), &VramUsage::other);
    staged_allowed_ =
        PinnedBuffer(*runtime_, words * 8 * static_cast<uint64_t>(sample_rows_capacity_));
    allowed_words_ = words;
  }
  // Ids past the bits given (a vocabulary the model pads) are refused.
  uint64_t* staged = staged_allowed_.get<uint64_t>() + static_cast<uint64_t>(row) * words;
  const size_t given = std::min<size_t>(allowed.size(), words);
  std::copy_n(allowed.begin(), given, staged);
  std::fill(staged + given, staged + words, uint64_t{0});
  staged_allowed_rows_ = row + 1;
  return row * static_cast<int64_t>(words);
}

}  // namespace orcd::engine::cuda
