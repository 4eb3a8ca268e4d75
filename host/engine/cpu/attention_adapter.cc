// ATTENTION on the CPU: for every (token, head) computes softmax(scale * q.K)
// over the positions the query may see (causal, limited by the state's sliding
// window; optional sinks join the denominator only) and the weighted sum of V,
// then stores the batch's K and V in the cache. Scores and softmax in f32;
// K/V are read in the cache's type (f16 by default; f32; q8_0, dequantized
// as it is read). In a step of several
// sequences each query sees only its own sequence's keys: its cached blocks
// (through its block table or ring) and its own tokens of this batch.
//
// Why attend before storing: a sliding-window layer's cache is a ring of
// `window` positions, so a batch longer than the window would overwrite keys
// its own early queries still need. Keys of earlier batches come from the
// ring; keys of this batch come from a staging copy in the cache's type (so
// they are rounded exactly as if read back from the cache).
#include <algorithm>
#include <cstring>
#include <vector>

#include "host/common/status.h"
#include "host/engine/cpu/cpu_adapters.h"
#include "host/engine/cpu/simd.h"
#include "host/engine/cpu/softmax_scores.h"

namespace orcd::engine::cpu {
namespace {

// The batch's K or V ([n_tokens][heads][head_dim] f32) in the cache's type
// and laid out as the cache is, head by head ([heads][n_tokens][head_dim]):
// one head's rows are then contiguous, where token-major rows lie a whole
// token's heads apart (6 KiB on Phi-3: a page, and a TLB miss, per row).
const uint8_t* Stage(const KvCache& kv, const float* src, int64_t n_tokens, int64_t heads,
                     int64_t d, std::vector<uint8_t>& buf) {
  const size_t row_bytes = kv.RowBytes(d);
  buf.resize(static_cast<size_t>(n_tokens * heads) * row_bytes);
  for (int64_t g = 0; g < heads; ++g) {
    for (int64_t t = 0; t < n_tokens; ++t) {
      const float* from = src + (t * heads + g) * d;
      uint8_t* to = buf.data() + static_cast<size_t>(g * n_tokens + t) * row_bytes;
      switch (kv.type()) {
        case KvType::kF32:
          std::memcpy(to, from, row_bytes);
          break;
        case KvType::kF16:
          Simd().f32_to_f16(from, reinterpret_cast<uint16_t*>(to), d);
          break;
        case KvType::kQ8_0:
          QuantizeRowQ8_0(from, to, d);
          break;
      }
    }
  }
  return buf.data();
}

// Stores each sequence's last min(n_tokens, capacity) positions (earlier
// ones would be overwritten within this batch anyway in a ring).
void StoreKv(const KvCache& kv, const KvCache::Layer& layer, const uint8_t* k, const uint8_t* v,
             int64_t n_tokens, const StepSequence& seq) {
  const int64_t heads = layer.desc.n_kv_heads;
  const size_t bytes = kv.RowBytes(layer.desc.head_dim);
  const int64_t first = std::max<int64_t>(0, seq.n_tokens - layer.capacity);
  for (int64_t i = first; i < seq.n_tokens; ++i) {
    const int64_t t = seq.first_row + i;
    for (int64_t g = 0; g < heads; ++g) {
      const size_t at = kv.ByteOffset(layer.RowIndex(seq.kv, seq.pos0 + i, g));
      const size_t from = static_cast<size_t>(g * n_tokens + t) * bytes;
      std::memcpy(static_cast<uint8_t*>(layer.k) + at, k + from, bytes);
      std::memcpy(static_cast<uint8_t*>(layer.v) + at, v + from, bytes);
    }
  }
}

}  // namespace

void RunAttention(const BoundInstruction& insn, ExecContext& ctx) {
  const auto p = insn.ParamsAs<orcd_op_attention_params>();
  const KvCache& kv = *ctx.kv;
  const KvCache::Layer& layer = kv.layer(insn.kv_index);
  const int64_t d = p.head_dim;
  const int64_t n_head = p.n_head;
  const int64_t n_head_kv = p.n_head_kv;
  const int64_t group = p.n_head / p.n_head_kv;
  // Reused across calls (this adapter runs on the executor's thread only).
  thread_local std::vector<uint8_t> k_buf, v_buf;
  const uint8_t* k_batch = Stage(kv, ctx.In(insn, 1), ctx.n_tokens, n_head_kv, d, k_buf);
  const uint8_t* v_batch = Stage(kv, ctx.In(insn, 2), ctx.n_tokens, n_head_kv, d, v_buf);
  // Without a step: the batch is one sequence in the contiguous cache.
  const StepSequence single{0, ctx.n_tokens, ctx.pos0, kv.contiguous_view()};
  const StepSequence* seqs = ctx.seqs ? ctx.seqs : &single;
  const int64_t n_seqs = ctx.seqs ? ctx.n_seqs : 1;

  const SimdKernels& s = Simd();
  const KvType type = kv.type();
  const int64_t window = layer.desc.sliding_window;
  const float* sinks =
      insn.weights.empty() ? nullptr : reinterpret_cast<const float*>(insn.weights[0]->data);
  const float* q = ctx.In(insn, 0);
  float* o = ctx.Out(insn, 0);
  const size_t row_bytes = kv.RowBytes(d);
  const auto* k_cache = static_cast<const uint8_t*>(layer.k);
  const auto* v_cache = static_cast<const uint8_t*>(layer.v);

  // A query's group keeps group x (its positions) scores in the thread's
  // workspace (CpuWorkspaceFloats: group x the context length, and more).
  for (int64_t i = 0; i < n_seqs; ++i) {
    if (group * (seqs[i].pos0 + seqs[i].n_tokens) > ctx.workspace_floats) {
      throw Error(ErrorCode::kInternal, "attention scores exceed the CPU workspace");
    }
  }
  // Items are (KV head, token), KV-head-major: one KV head's queries run back
  // to back, so its keys and values stay in L2 from one query to the next,
  // and the pieces of the range hold equal shares of the causal work. The
  // query heads that share a KV head go together: each K and V row is read
  // (and converted) once for all of them.
  ParallelRange(ctx, ctx.n_tokens * n_head_kv, 1, [&](int64_t begin, int64_t end, int thread) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t g = item / ctx.n_tokens;
      const int64_t t = item % ctx.n_tokens;
      const StepSequence& seq = seqs[ctx.token_seq ? ctx.token_seq[t] : 0];
      const int64_t pos = seq.pos0 + (t - seq.first_row);
      const int64_t first = window > 0 ? std::max<int64_t>(0, pos - window + 1) : 0;
      const int64_t count = pos - first + 1;
      // The group's scores, head after head (count apart), in the thread's
      // workspace (checked above).
      float* scores = ctx.Workspace(thread);
      const float* qg = q + t * n_head * d + g * group * d;
      float* og = o + t * n_head * d + g * group * d;
      // Positions first .. pos as runs of rows at one stride each: the
      // sequence's cached blocks (or ring, split where it wraps), then its
      // tokens of this batch in the staging copy.
      // fn(rows, index of the run's first position, rows); a run's rows are
      // row_bytes apart.
      const auto for_each_run = [&](const uint8_t* batch, const uint8_t* cache, auto&& fn) {
        int64_t j = first;
        const int64_t cached_end = std::min(pos + 1, seq.pos0);
        while (j < cached_end) {
          const int64_t n = std::min(cached_end - j, layer.RunLength(j));
          fn(cache + kv.ByteOffset(layer.RowIndex(seq.kv, j, g)), j - first, n);
          j += n;
        }
        if (j <= pos) {
          const int64_t row = g * ctx.n_tokens + seq.first_row + (j - seq.pos0);
          fn(batch + static_cast<size_t>(row) * row_bytes, j - first, pos + 1 - j);
        }
      };

      for_each_run(k_batch, k_cache, [&](const uint8_t* rows, int64_t at, int64_t n) {
        if (type == KvType::kF16) {
          s.dot_f16_rows_heads(reinterpret_cast<const uint16_t*>(rows), d, n, qg, d,
                               static_cast<int>(group), d, scores + at, count);
          return;
        }
        for (int64_t i = 0; i < group; ++i) {
          if (type == KvType::kF32) {
            s.dot_f32_rows(reinterpret_cast<const float*>(rows), d, n, qg + i * d, d,
                           scores + i * count + at);
          } else {
            s.dot_q8_0_rows(rows, static_cast<int64_t>(row_bytes), n, qg + i * d, d,
                            scores + i * count + at);
          }
        }
      });
      for (int64_t i = 0; i < group; ++i) {
        const int64_t h = g * group + i;
        SoftmaxScores(scores + i * count, count, p.scale, p.softcap, sinks ? sinks + h : nullptr);
      }
      std::fill(og, og + group * d, 0.0f);
      for_each_run(v_batch, v_cache, [&](const uint8_t* rows, int64_t at, int64_t n) {
        if (type == KvType::kF16) {
          s.axpy_f16_rows_heads(scores + at, count, reinterpret_cast<const uint16_t*>(rows), d, n,
                                static_cast<int>(group), og, d, d);
          return;
        }
        for (int64_t i = 0; i < group; ++i) {
          if (type == KvType::kF32) {
            s.axpy_f32_rows(scores + i * count + at, reinterpret_cast<const float*>(rows), d, n,
                            og + i * d, d);
          } else {
            s.axpy_q8_0_rows(scores + i * count + at, rows, static_cast<int64_t>(row_bytes), n,
                             og + i * d, d);
          }
        }
      });
    }
  });
  for (int64_t i = 0; i < n_seqs; ++i) StoreKv(kv, layer, k_batch, v_batch, ctx.n_tokens, seqs[i]);
}

}  // namespace orcd::engine::cpu
