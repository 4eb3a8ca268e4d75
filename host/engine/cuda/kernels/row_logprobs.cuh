// Log-probabilities of a sampled row on the device, so that a job asking for
// logprobs keeps sampling there and only kRowLogprobsMax (id, logit) pairs and
// two numbers cross to the host, not the vocabulary's logits. The values are
// host/sampling/token_logprobs.cc's: the raw logits (before the penalty and
// temperature), their maximum (NaN never wins), a double sum of
// exp(logit - max) (per-thread strided shares combined in thread order: it
// differs from the CPU's sequential sum only in the last bits of a double),
// and the most probable ids in (logit desc, id asc) order with NaN skipped.
// Each thread keeps its share's best in a sorted list (the order is total, so
// which thread visits an id changes nothing); the CTA then takes the best
// list head top_n times (a tree reduction in shared memory per rank).
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_ROW_LOGPROBS_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_ROW_LOGPROBS_CUH_

#include "host/engine/cuda/kernels/common.cuh"
#include "host/engine/cuda/kernels/row_block.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

// The row's log_total and its top_n ids (0 <= top_n <= kRowLogprobsMax).
// Every thread of the CTA calls; blockDim.x is a power of two.
__device__ __forceinline__ void row_logprobs(const float* logits, int64_t n, int top_n,
                                             RowLogprobs* out) {
  __shared__ double part[kRowThreadsMax];
  __shared__ float head_key[kRowThreadsMax];
  __shared__ int32_t head_id[kRowThreadsMax];
  float key[kRowLogprobsMax];
  int32_t id[kRowLogprobsMax];
  int kept = 0;
  float local_max = -INFINITY;
  ORCD_ROW_STRIDE(i, n) {
    const float l = logits[i];
    local_max = l > local_max ? l : local_max;
    if (l != l || top_n == 0) continue;  // NaN is never listed
    const auto li = static_cast<int32_t>(i);
    if (kept == top_n && !before(l, li, key[kept - 1], id[kept - 1])) continue;
    int at = kept < top_n ? kept++ : top_n - 1;  // the last place, or a new one
    while (at > 0 && before(l, li, key[at - 1], id[at - 1])) {
      key[at] = key[at - 1];
      id[at] = id[at - 1];
      --at;
    }
    key[at] = l;
    id[at] = li;
  }
  const float max = row_max(local_max);
  double sum = 0.0;
  ORCD_ROW_STRIDE(i, n) sum += exp(static_cast<double>(logits[i]) - max);
  const double total = exclusive_prefix(part, sum);

  int head = 0, found = 0;
  for (int rank = 0; rank < top_n; ++rank) {
    head_key[threadIdx.x] = head < kept ? key[head] : -INFINITY;
    head_id[threadIdx.x] = head < kept ? id[head] : INT32_MAX;  // none: after every id
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) {
        const unsigned o = threadIdx.x + s;
        if (before(head_key[o], head_id[o], head_key[threadIdx.x], head_id[threadIdx.x])) {
          head_key[threadIdx.x] = head_key[o];
          head_id[threadIdx.x] = head_id[o];
        }
      }
      __syncthreads();
    }
    const int32_t winner = head_id[0];
    const float winner_key = head_key[0];
    __syncthreads();                 // every thread read the winner before the next rank's writes
    if (winner == INT32_MAX) break;  // fewer listed ids than asked: the same for all
    if (head < kept && id[head] == winner) ++head;  // ids are distinct across threads
    if (threadIdx.x == 0) {
      out->top_ids[rank] = winner;
      out->top_logits[rank] = winner_key;
    }
    found = rank + 1;
  }
  if (threadIdx.x == 0) {
    out->n_top = found;
    out->log_total = static_cast<double>(max) + log(total);
  }
}

// The chosen id's raw logit: the row as it is now, unless the penalty changed
// it (then the value saved in raw_penalized before it did). Every thread calls.
__device__ __forceinline__ void chosen_raw_logit(const float* logits, const int32_t* penalized,
                                                 const float* raw_penalized, int64_t n_penalized,
                                                 int32_t chosen, RowLogprobs* out) {
  __syncthreads();
  if (threadIdx.x == 0) out->chosen_logit = logits[chosen];
  __syncthreads();
  for (int64_t i = threadIdx.x; i < n_penalized; i += blockDim.x) {
    if (penalized[i] == chosen) out->chosen_logit = raw_penalized[i];  // ids are distinct
  }
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ROW_LOGPROBS_CUH_
