// The seeded sampler on the device, in the CPU sampler's order
// (host/sampling/sampler.cc): repetition penalty on the generated tokens,
// temperature, sort by (logit desc, id asc), top-k, softmax with a double sum,
// top-p, min-p, then the pick for a uniform draw the host makes from the job's
// seeded generator. Only the chosen id crosses to the host (and, for a row
// asking for log-probabilities, row_logprobs.cuh's few values).
//
// One CTA per row (rows are independent: a row's pick is the same alone or
// among others). Only the candidates are sorted: the scaled logits within
// ln(vocab) + 26 ln 2 nats of the largest (candidate_nats), compacted into
// global scratch and bitonic-sorted; the rest enter the sums as one tail term
// (under 2^-26 of the mass). On a trained model's peaked rows that is
// hundreds or thousands of ids instead of the whole padded vocabulary
// (262,144 for Qwen2.5: 171 passes over 2 MiB from one SM), and never more
// than it. Passes over the vocabulary are strided (coalesced); sums and scans
// over the sorted candidates use per-thread contiguous chunks, combined in
// thread order by row_block.cuh's warp-0 scans. The result equals the CPU's choice except where
// a draw falls within an ulp of a boundary (device expf and summation order).
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_SAMPLER_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_SAMPLER_CUH_

#include "host/engine/cuda/kernels/common.cuh"
#include "host/engine/cuda/kernels/row_block.cuh"
#include "host/engine/cuda/kernels/row_logprobs.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

constexpr int kSamplerThreads = kRowThreadsMax;

// The smallest of the per-thread candidates (`none` when no thread has one),
// as row_block.cuh reduces: warp 0 over the slots, then shuffles. Every
// thread calls.
__device__ __forceinline__ int64_t block_min_index(int64_t* slots, int64_t mine) {
  __shared__ int64_t result;
  slots[threadIdx.x] = mine;
  __syncthreads();
  if (threadIdx.x < kWarp) {
    int64_t best = INT64_MAX;
    for (unsigned k = threadIdx.x; k < blockDim.x; k += kWarp)
      best = slots[k] < best ? slots[k] : best;
    for (int offset = kWarp / 2; offset > 0; offset >>= 1) {
      const int64_t other = __shfl_xor_sync(0xFFFFFFFFu, best, offset);
      best = other < best ? other : best;
    }
    if (threadIdx.x == 0) result = best;
  }
  __syncthreads();
  const int64_t r = result;
  __syncthreads();  // slots and result are reused by the next call
  return r;
}

// Whether candidate index b beats a in an argmax (the larger value, then the
// lower index; -1 = none; NaN values are never candidates).
__device__ __forceinline__ bool argmax_beats(const float* v, int64_t b, int64_t a) {
  if (b < 0) return false;
  if (a < 0) return true;
  return v[b] > v[a] || (v[b] == v[a] && b < a);
}

// std::max_element's choice over v[0, n): the first index of the largest
// non-NaN value, or 0 when v[0] is NaN (nothing compares above it) or every
// value is. Strided passes, then warp 0 over the threads' picks (the rule is
// a total order: the combination's order cannot change the pick). Every
// thread calls.
__device__ __forceinline__ int64_t block_argmax(const float* v, int64_t n, int64_t* slots) {
  __shared__ int64_t result;
  int64_t best = -1;
  ORCD_ROW_STRIDE(i, n) {
    if (!isnan(v[i]) && argmax_beats(v, i, best)) best = i;
  }
  slots[threadIdx.x] = best;
  __syncthreads();
  if (threadIdx.x < kWarp) {
    best = -1;
    for (unsigned k = threadIdx.x; k < blockDim.x; k += kWarp) {
      if (argmax_beats(v, slots[k], best)) best = slots[k];
    }
    for (int offset = kWarp / 2; offset > 0; offset >>= 1) {
      const int64_t other = __shfl_xor_sync(0xFFFFFFFFu, best, offset);
      if (argmax_beats(v, other, best)) best = other;
    }
    if (threadIdx.x == 0) result = best < 0 || isnan(v[0]) ? 0 : best;
  }
  __syncthreads();
  const int64_t r = result;
  __syncthreads();  // slots and result are reused by the next call
  return r;
}

// Bitonic sort of keys/ids[0, size) (size a power of two) into `before` order.
__device__ __forceinline__ void bitonic_sort(float* keys, int32_t* ids, int64_t size) {
  for (int64_t k = 2; k <= size; k <<= 1) {
    for (int64_t j = k >> 1; j > 0; j >>= 1) {
      for (int64_t i = threadIdx.x; i < size; i += blockDim.x) {
        const int64_t l = i ^ j;
        if (l <= i) continue;
        const bool first_half = (i & k) == 0;
        const bool swap = first_half ? before(keys[l], ids[l], keys[i], ids[i])
                                     : before(keys[i], ids[i], keys[l], ids[l]);
        if (swap) {
          const float kt = keys[i];
          keys[i] = keys[l];
          keys[l] = kt;
          const int32_t it = ids[i];
          ids[i] = ids[l];
          ids[l] = it;
        }
      }
      __syncthreads();
    }
  }
}

// Candidates worth sorting: scaled logits within kCandidateNats(n) of the
// largest. Every other one has exp(key - max) < 1 / (n * 2^26), so all of
// them together hold under 2^-26 (1.5e-8) of the softmax mass: less than the
// rounding of the float probabilities themselves. Their mass still enters
// the sums (as one tail term); only a draw landing inside it, or a top-p
// within 1.5e-8 of 1, could have chosen among them.
__device__ __forceinline__ float candidate_nats(int64_t n) {
  return logf(static_cast<float>(n)) + 26.0f * 0.6931472f;
}

struct Candidates {
  int64_t count;      // compacted into keys/ids[0, count), then sorted
  double tail;        // sum of exp(key - max) over the rest
  bool not_a_number;  // a NaN scaled logit: no softmax
};

// Compacts the candidates (each thread's strided share in id order, shares
// in thread order: the sort below makes the order immaterial), pads them to a
// power of two and sorts them.
__device__ __forceinline__ Candidates sort_candidates(const SampleArgs& a, float max_key,
                                                      double* part) {
  __shared__ int nan_seen;
  if (threadIdx.x == 0) nan_seen = 0;
  __syncthreads();
  const float floor = max_key - candidate_nats(a.vocab);
  int64_t mine = 0;
  double tail = 0.0;
  ORCD_ROW_STRIDE(i, a.vocab) {
    const float k = a.logits[i] * a.inv_temperature;
    if (k >= floor) {
      ++mine;
    } else if (k < floor) {
      tail += expf(k - max_key);
    } else {
      nan_seen = 1;
    }
  }
  Candidates c;
  const double count = exclusive_prefix(part, static_cast<double>(mine));
  int64_t at = static_cast<int64_t>(part[threadIdx.x]);
  c.tail = exclusive_prefix(part, tail);
  c.count = static_cast<int64_t>(count);
  c.not_a_number = nan_seen != 0;
  ORCD_ROW_STRIDE(i, a.vocab) {
    const float k = a.logits[i] * a.inv_temperature;
    if (k >= floor) {
      a.keys[at] = k;
      a.ids[at] = static_cast<int32_t>(i);
      ++at;
    }
  }
  int64_t size = 1;
  while (size < c.count) size <<= 1;
  for (int64_t i = c.count + threadIdx.x; i < size; i += blockDim.x) {
    a.keys[i] = -INFINITY;
    a.ids[i] = INT32_MAX;
  }
  __syncthreads();
  bitonic_sort(a.keys, a.ids, size);
  return c;
}

// Structured output: every id whose bit in `allowed` is clear gets -inf (as
// TokenConstraint::Mask does on the host), the row's own values in place.
// Every thread calls; the row is whole when it returns.
__device__ __forceinline__ void mask_row(float* logits, int64_t vocab, const uint64_t* allowed) {
  for (int64_t i = threadIdx.x; i < vocab; i += blockDim.x) {
    if (((allowed[i / 64] >> (i % 64)) & 1u) == 0) logits[i] = -INFINITY;
  }
  __syncthreads();
}

// Samples one row with the whole CTA: every thread returns the chosen id;
// thread 0 also writes it to *a.out.
__device__ __forceinline__ int32_t sample_row(const SampleArgs& a) {
  __shared__ double part[kSamplerThreads];
  __shared__ int64_t slots[kSamplerThreads];
  const int64_t n = a.vocab;
  float* keys = a.keys;
  int32_t* ids = a.ids;

  // Repetition penalty (the ids are distinct), then temperature.
  for (int64_t i = threadIdx.x; i < a.n_penalized; i += blockDim.x) {
    float& l = a.logits[a.penalized[i]];
    if (a.raw_penalized != nullptr) a.raw_penalized[i] = l;
    l = l > 0 ? l / a.penalty : l * a.penalty;
  }
  __syncthreads();
  if (a.inv_temperature <= 0.0f) {  // greedy after the penalty
    const auto best = static_cast<int32_t>(block_argmax(a.logits, n, slots));
    if (threadIdx.x == 0) *a.out = best;
    return best;
  }
  float local_max = -INFINITY;
  ORCD_ROW_STRIDE(i, n) {
    const float k = a.logits[i] * a.inv_temperature;
    local_max = k > local_max ? k : local_max;
  }
  const float max_key = row_max(local_max);
  // Scaled logits past FLT_MAX (a tiny temperature): no softmax. As the CPU
  // sampler does, the limit of temperature -> 0 is the greedy choice over the
  // penalized logits.
  const Candidates candidates =
      isfinite(max_key) ? sort_candidates(a, max_key, part) : Candidates{0, 0.0, true};
  if (!isfinite(max_key) || candidates.not_a_number) {
    const auto best = static_cast<int32_t>(block_argmax(a.logits, n, slots));
    if (threadIdx.x == 0) *a.out = best;
    return best;
  }

  // Softmax over the top-k survivors (keys become probabilities); survivors
  // outside the candidates count as the tail's mass.
  const int64_t survivors = a.top_k > 0 && a.top_k < n ? a.top_k : n;
  int64_t count = survivors < candidates.count ? survivors : candidates.count;
  bool with_tail = count < survivors;
  int64_t begin, end;  // contiguous shares from here: the scans below are in rank order
  chunk(count, &begin, &end);
  double local = 0.0;
  for (int64_t i = begin; i < end; ++i) {
    keys[i] = expf(keys[i] - max_key);
    local += keys[i];
  }
  const double sum = exclusive_prefix(part, local) + (with_tail ? candidates.tail : 0.0);
  for (int64_t i = begin; i < end; ++i) keys[i] = static_cast<float>(keys[i] / sum);
  __syncthreads();

  if (a.top_p < 1.0) {  // the shortest prefix whose mass reaches top_p
    local = 0.0;
    for (int64_t i = begin; i < end; ++i) local += keys[i];
    exclusive_prefix(part, local);
    double cum = part[threadIdx.x];
    int64_t keep = INT64_MAX;
    for (int64_t i = begin; i < end; ++i) {
      cum += keys[i];
      if (cum >= a.top_p) {
        keep = i + 1;
        break;
      }
    }
    keep = block_min_index(slots, keep);
    if (keep != INT64_MAX) with_tail = false;
    count = keep == INT64_MAX ? count : (keep > 1 ? keep : 1);
  }
  if (a.min_p > 0.0) {  // probabilities sorted descending: cut at the first below the floor
    const double floor = a.min_p * keys[0];
    chunk(count, &begin, &end);
    int64_t cut = INT64_MAX;
    for (int64_t i = begin > 1 ? begin : 1; i < end; ++i) {
      if (keys[i] < floor) {
        cut = i;
        break;
      }
    }
    cut = block_min_index(slots, cut);
    if (cut != INT64_MAX) count = cut;
    with_tail = false;  // the tail's probabilities are all below any practical floor
  }

  // The pick: the first candidate whose running mass exceeds uniform * total.
  chunk(count, &begin, &end);
  local = 0.0;
  for (int64_t i = begin; i < end; ++i) local += keys[i];
  const double total = exclusive_prefix(part, local) + (with_tail ? candidates.tail / sum : 0.0);
  const double r = a.uniform * total;
  double acc = part[threadIdx.x];
  int64_t pick = INT64_MAX;
  for (int64_t i = begin; i < end; ++i) {
    acc += keys[i];
    if (r < acc) {
      pick = i;
      break;
    }
  }
  pick = block_min_index(slots, pick);
  const int32_t chosen = ids[pick == INT64_MAX ? count - 1 : pick];
  if (threadIdx.x == 0) *a.out = chosen;
  return chosen;
}

__global__ void __launch_bounds__(kSamplerThreads) sample_rows_kernel(SampleRowsArgs b) {
  const int64_t r = blockIdx.x;
  const SampleRow& row = b.rows[r];
  SampleArgs a;
  a.logits = b.logits + row.logits_offset;
  a.vocab = b.vocab;
  a.padded = b.padded;
  a.keys = b.keys + r * b.padded;
  a.ids = b.ids + r * b.padded;
  a.penalized = b.penalized + row.penalized_offset;
  a.n_penalized = row.n_penalized;
  a.penalty = row.penalty;
  a.inv_temperature = row.inv_temperature;
  a.top_k = row.top_k;
  a.top_p = row.top_p;
  a.min_p = row.min_p;
  a.uniform = row.uniform;
  a.out = b.out + r;
  a.raw_penalized = nullptr;
  if (row.top_logprobs < 0) {
    if (row.allowed_offset >= 0) mask_row(a.logits, a.vocab, b.allowed + row.allowed_offset);
    sample_row(a);
    return;
  }
  // Log-probabilities from the raw row, before the mask and the penalty
  // change it; the penalized logits are saved for the chosen id's own.
  RowLogprobs* lp = b.logprobs + r;
  const int top_n = row.top_logprobs < kRowLogprobsMax ? row.top_logprobs : kRowLogprobsMax;
  row_logprobs(a.logits, a.vocab, top_n, lp);
  __syncthreads();
  if (row.allowed_offset >= 0) mask_row(a.logits, a.vocab, b.allowed + row.allowed_offset);
  a.raw_penalized = b.raw_penalized + row.penalized_offset;
  const int32_t chosen = sample_row(a);
  chosen_raw_logit(a.logits, a.penalized, a.raw_penalized, a.n_penalized, chosen, lp);
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_SAMPLER_CUH_
