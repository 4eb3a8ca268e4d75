// The CUDA backend's own kernels (everything but the quant plugins' weight
// kernels), as launch functions over device pointers on a stream. Two tables
// implement it from the same source (op_launchers.h): the real device
// (op_kernels_device.cu, built with CUDA) and the emulated device
// (op_kernels_emulated.cc: the SDK's CUDA emulator, always built), so that CI
// runs the same kernels without a GPU. No CUDA types cross this header.
#ifndef ORCD_HOST_ENGINE_CUDA_OP_KERNELS_H_
#define ORCD_HOST_ENGINE_CUDA_OP_KERNELS_H_

#include <cstdint>

#include "orcd/plugin.h"  // orcd_q8_x32

namespace orcd::engine::cuda {

// Where one row (token) of a step sits: its position; its sequence's rows in
// this step (the keys and values attention reads from the batch rather than
// the cache: rows [seq_first_row, + seq_rows) at positions seq_pos0..); and
// where its sequence's KV lives: its block table at StepValues::tables +
// table (full-context layers) and its ring slot (sliding-window layers).
struct StepRow {
  int32_t position = 0;
  int32_t seq_first_row = 0;
  int32_t seq_pos0 = 0;
  int32_t seq_rows = 0;
  int32_t ring_slot = 0;
  int32_t table = 0;
};

// The per-step values kernels read through a pointer, filled by one copy per
// step, so that a decode step's launch parameters never change (graph
// capture): a replayed step of G rows serves any G sequences.
struct StepValues {
  int64_t n_tokens = 0;           // rows in the step
  const StepRow* rows = nullptr;  // [n_tokens], device memory
  const int32_t* tables = nullptr;
};

constexpr int kMaxHeadDim = 256;
constexpr int kMaxExpertsUsed = 16;

// A register ROPE rotates: x [n][heads * head_dim] -> y (may be x), bias
// [heads * head_dim] added to x first, or null.
struct RopeTarget {
  const float* x;
  float* y;
  const float* bias;
  int64_t heads;
};

struct RopeArgs {
  RopeTarget target[2];  // n_targets of them, one launch
  int n_targets;
  const float* freq_factors;  // [n_rot / 2] or null
  int64_t n_tokens, head_dim, n_rot;
  bool neox;
  // Computed on the host as the CPU adapter does (device powf and logf are
  // not correctly rounded: theta drifted ~2e-5 from the CPU's by position
  // 300): theta_scale = freq_base^(-2 / n_rot); mscale = attn_factor, times
  // YaRN's magnitude factor when ext_factor != 0.
  float theta_scale, mscale;
  float freq_scale, ext_factor;
  float yarn_low, yarn_high;  // YaRN correction dims (ext_factor != 0)
  const StepValues* step;
};

struct AttentionArgs {
  const float* q;      // [n][n_head * d]
  const float* k_new;  // [n][n_head_kv * d]
  const float* v_new;
  float* o;       // [n][n_head * d]
  void* k_cache;  // [block][n_head_kv][block_tokens][d] of f16, f32 or q8_0 (kv_cache.h)
  void* v_cache;
  bool f16;              // cache element type f16
  bool q8_kv;            // cache element type q8_0 (ggml's block_q8_0; d % 32 == 0)
  bool ring;             // a sliding-window layer: each sequence's ring of `capacity`
  int64_t capacity;      // positions one sequence holds (its ring when windowed)
  int64_t block_tokens;  // positions per block
  int64_t window;        // 0 = full context
  // The launch's rows: [row0, row0 + n_tokens) of the step (a mixed step's
  // decode rows and prompt rows go in launches of their own).
  int64_t row0;
  int64_t n_tokens, n_head, n_head_kv, head_dim;
  float scale, softcap;
  const float* sinks;   // [n_head] or null
  const float* v_bias;  // [n_head_kv * d] added to v_new as it is read, or null
  const StepValues* step;
  // One token: o also rounded to 8 bits, d % 32 == 0 (q8 runs of
  // quantize_q8's layout), or null.
  orcd_q8_x32* q8 = nullptr;
  // Decode rows (each a sequence's generated token): every row's span split
  // over kv_splits CTAs per head (> 1), partial results in partial
  // [n_tokens][n_head][kv_splits][head_dim + 2] (the launch's rows); 1 = not
  // split.
  int64_t kv_splits = 1;
  float* partial = nullptr;
};

// Split-KV for decode: parts of at least 64 positions of the cache's
// capacity, at most 32 (fixed per layer, so a decode step's launches stay the
// same whatever the position).
constexpr int64_t kMaxKvSplits = 32;
inline int64_t KvSplits(int64_t capacity) {
  const int64_t splits = (capacity + 63) / 64;
  return splits < 1 ? 1 : splits > kMaxKvSplits ? kMaxKvSplits : splits;
}

struct MoeRouteArgs {
  const float* logits;  // [n][n_expert]
  int32_t* ids;         // [n][k]
  float* weights;       // [n][k]
  int64_t n_tokens, n_expert, k;
  int gating;  // orcd_moe_gating
  bool normalize;
};

// The device sampler (kernels/sampler.cuh), one CTA per row. A row's
// parameters and its scratch: logits are modified (penalty).
struct SampleArgs {
  float* logits;  // [vocab]
  int64_t vocab;
  int64_t padded;            // a power of two >= vocab: keys/ids hold this many
  float* keys;               // [padded] scratch
  int32_t* ids;              // [padded] scratch
  const int32_t* penalized;  // distinct generated ids
  int64_t n_penalized;
  float penalty;          // repetition penalty (1 = none)
  float inv_temperature;  // 0: greedy after the penalty
  int64_t top_k;          // 0 = off
  double top_p, min_p;    // 1 / 0 = off
  double uniform;         // [0, 1), the job's seeded draw
  int32_t* out;
  float* raw_penalized;  // non-null: each penalized logit saved here before the penalty
};

// One row of a sampling launch, in device memory: its SampleArgs without the
// buffers, which are offsets into SampleRowsArgs' (row r uses keys/ids
// [r * padded, +padded)).
struct SampleRow {
  int64_t logits_offset;     // floats into SampleRowsArgs::logits
  int64_t penalized_offset;  // ids into SampleRowsArgs::penalized
  int64_t n_penalized;
  float penalty, inv_temperature;
  int64_t top_k;
  double top_p, min_p, uniform;
  // Log-probabilities asked for: the most probable ids to report (0 to
  // kRowLogprobsMax; -1: none, and SampleRowsArgs::logprobs[r] is untouched).
  int32_t top_logprobs;
  // Structured output: words into SampleRowsArgs::allowed of the bits (by
  // id) of the ids the pick may be; -1: any id.
  int64_t allowed_offset = -1;
};

// The most top-logprob ids a row reports (OpenAI's top_logprobs limit).
constexpr int kRowLogprobsMax = 20;

// A sampled row's log-probabilities in the model's own distribution (the raw
// logits, before the penalty and temperature), for the host to finish as
// ComputeLogprobs does: logprob(id) = logit - log_total, in double.
struct RowLogprobs {
  double log_total;    // max + log(sum of exp(logit - max)), the sum in double
  float chosen_logit;  // the chosen id's raw logit
  int32_t n_top;       // ids in top_*, most probable first (ties: lower id)
  int32_t top_ids[kRowLogprobsMax];
  float top_logits[kRowLogprobsMax];
};

struct SampleRowsArgs {
  float* logits;
  int64_t vocab, padded;
  float* keys;   // [rows][padded] scratch
  int32_t* ids;  // [rows][padded] scratch
  const SampleRow* rows;
  const int32_t* penalized;
  int32_t* out;  // [rows]: each row's chosen id
  int64_t n_rows;
  RowLogprobs* logprobs;    // [rows], written for rows with top_logprobs >= 0
  float* raw_penalized;     // parallel to penalized: the logits before the penalty
  const uint64_t* allowed;  // rows' allowed-id bits (SampleRow::allowed_offset)
};

// Each returns 0, or the runtime's error number for a failed launch.
// Device memory for argmax's partial results: kArgmaxPartsMax of each.
constexpr int64_t kArgmaxPartsMax = 128;
struct ArgmaxScratch {
  float* values = nullptr;
  int32_t* ids = nullptr;
};

struct OpKernels {
  const char* name;
  int (*add)(const float* a, const float* b, float* y, int64_t n, void* stream);
  int (*mul)(const float* a, const float* b, float* y, int64_t n, void* stream);
  // y[t][i] = act(gate[t * in_stride + i], up[t * in_stride + i]), i < f,
  // act an orcd_moe_activation without parameters (SWIGLU, GEGLU).
  int (*glu)(const float* gate, const float* up, int64_t in_stride, float* y, int64_t f,
             int64_t n_tokens, uint32_t activation, void* stream);
  // One token's swiglu with y also rounded to 8 bits into q8 (f % 32 == 0):
  // the same bits as swiglu then quantize_q8.
  int (*swiglu_q8)(const float* gate, const float* up, float* y, orcd_q8_x32* q8, int64_t f,
                   void* stream);
  int (*gelu)(const float* x, float* y, int64_t n, void* stream);
  // y[t * y_stride + r] += bias[r], r < width.
  int (*add_bias)(float* y, const float* bias, int64_t width, int64_t y_stride, int64_t n_tokens,
                  void* stream);
  int (*softcap)(float* y, float cap, int64_t n, void* stream);
  int (*scale)(float* y, float s, int64_t n, void* stream);  // y *= s
  // ids[t] = pos0 + t (learned position rows).
  int (*positions)(int32_t* ids, const StepValues* step, int64_t n, void* stream);
  int (*rms_norm)(const float* x, const float* gamma, float* y, int64_t groups, int64_t group,
                  float eps, void* stream);
  // s = a + b (s may be a), y = RMS_NORM(s) * gamma (gamma may be null), rows
  // of width values: the same bits as add then rms_norm; with q8 (width %
  // 32 == 0) y also rounded as quantize_q8 rounds it.
  int (*add_rms_norm)(const float* a, const float* b, float* s, const float* gamma, float* y,
                      orcd_q8_x32* q8, int64_t rows, int64_t width, float eps, void* stream);
  int (*layer_norm)(const float* x, const float* gamma, const float* beta, float* y, int64_t rows,
                    int64_t width, float eps, void* stream);
  int (*rope)(const RopeArgs& a, void* stream);
  // Attends over earlier positions (cache) and the batch's own (k_new/v_new
  // rounded like the cache), then stores the batch in the cache.
  int (*attention)(const AttentionArgs& a, void* stream);
  // Host weight types (F32, F16, BF16): rows of a table, and
  // y[i * y_stride + r] = W_{ids ? ids[i] : 0}[r] . x[(i / ids_per_x) * x_stride ..]
  // with experts expert_stride elements apart.
  int (*dense_get_rows)(uint32_t type, const void* w, int64_t cols, const int32_t* ids,
                        int64_t n_ids, float* out, void* stream);
  int (*dense_matvec_ids)(uint32_t type, const void* w, int64_t rows, int64_t cols,
                          int64_t expert_stride, const int32_t* ids, int64_t n, int64_t ids_per_x,
                          const float* x, int64_t x_stride, float* y, int64_t y_stride,
                          void* stream);
  int (*moe_route)(const MoeRouteArgs& a, void* stream);
  // g[i][c] = act(g[i][c] + gb, u[i][c] + ub) for i < pairs, c < f
  // (orcd_moe_activation), gb / ub the picked expert ids[i]'s bias rows of
  // g_bias / u_bias ([E][f]), or none where those are null.
  int (*moe_activate)(float* g, const float* u, const float* g_bias, const float* u_bias,
                      const int32_t* ids, int64_t pairs, int64_t f, int activation, float alpha,
                      float limit, void* stream);
  // y[t][c] = sum_i weights[t * k + i] * (down[(t * k + i)][c] + db), db the
  // expert ids[t * k + i]'s row of bias ([E][d]), or none where bias is null.
  int (*moe_combine)(const float* down, const float* bias, const int32_t* ids, const float* weights,
                     float* y, int64_t n_tokens, int64_t k, int64_t d, void* stream);
  // out[i] = x[i] rounded to f16 (type 1) or bf16 (type 30): GEMM operands.
  int (*to_half)(const float* x, uint16_t* out, int64_t n, uint32_t type, void* stream);
  // Rows of x (cols values, x_stride apart; cols % 32 == 0) rounded to 8 bits
  // for the plugins' matvec_q8: rows * cols / 32 runs, row-major.
  int (*quantize_q8)(const float* x, int64_t x_stride, int64_t rows, int64_t cols, orcd_q8_x32* out,
                     void* stream);
  // Samples each of a.n_rows rows in parallel (one CTA each, the same
  // arithmetic whatever the number of rows).
  int (*sample_rows)(const SampleRowsArgs& a, void* stream);
  // *out = the index of the largest of x[0..n) (ties: the lowest).
  // out = the index of x's largest value (ties: the lowest), 0 < n < 2^31,
  // through kArgmaxPartsMax partial results in `scratch`.
  int (*argmax)(const float* x, int64_t n, ArgmaxScratch scratch, int32_t* out, void* stream);
  const char* (*error_name)(int error);
};

const OpKernels& EmulatedOpKernels();
#if ORCD_WITH_CUDA
const OpKernels& DeviceOpKernels();
#endif

// Whether dense_* serve this ggml type.
bool DenseTypeSupported(uint32_t type);

}  // namespace orcd::engine::cuda

#endif  // ORCD_HOST_ENGINE_CUDA_OP_KERNELS_H_
