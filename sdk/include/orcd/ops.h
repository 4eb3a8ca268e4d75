/*
 * orcd plugin SDK, ABI v1 — the host's macro-ops: opcode numbers and the
 * immutable parameter blocks an architecture plugin passes with each
 * orcd_instruction (orcd/plugin.h).
 *
 * Registers hold f32 activations, row-major [rows][width]. Every register of a
 * plan has one width, inferred by the host from the weights and parameters when
 * it validates the plan; rows are the batch's tokens (the LOGITS output alone has
 * one row per requested logits position). Register ORCD_REG_TOKENS holds the
 * batch's token ids (int32 [n_tokens]); the host fills it. Token t of a batch is
 * at sequence position (slot position + t). An instruction may name the same
 * register as input and output only where its description says "in place ok".
 *
 * A parameter block is copied by the host (params_size bytes). The host accepts a
 * block at least as large as the struct below (later minors append fields) and
 * rejects a smaller one. Blocks marked "optional" may be omitted (params NULL).
 *
 * Shapes below: x[n][k] means register x has width k. Weight shapes are in
 * ggml order: W[ne0=k, ne1=m] is m rows of k elements.
 */
#ifndef ORCD_OPS_H_
#define ORCD_OPS_H_

#include <stdint.h>

#include "orcd/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ORCD_REG_TOKENS 0

/* Opcode numbers never change within a major. */
enum {
  /* in {ORCD_REG_TOKENS}; w {table[d, vocab]}; out {x[n][d]};
   * params orcd_op_embedding_params, optional (since 1.6). */
  ORCD_OP_EMBEDDING = 1,
  /* in {x[n][k]}; w {W[k, m]} or {W[k, m], bias[m]}; out {y[n][m]}, or several
   * outputs that take consecutive row ranges of W (fused Q|K|V, gate|up): then
   * params orcd_op_matmul_params give each output's rows (they sum to m). */
  ORCD_OP_MATMUL = 2,
  /* in {a[n][k], b[n][k]}; out {y[n][k]} = a + b. In place ok. No params. */
  ORCD_OP_ADD = 3,
  /* in {a[n][k], b[n][k]}; out {y[n][k]} = a * b. In place ok. No params. */
  ORCD_OP_MUL = 4,
  /* in {x[n][k]}; w {} or {gamma[g]}; out {y[n][k]}; params orcd_op_norm_params.
   * Normalises each group of g = group_size (0: the whole row) elements:
   * y = x / sqrt(mean(x^2) + eps) * gamma. In place ok. */
  ORCD_OP_RMS_NORM = 5,
  /* in {x[n][k]}; w {gamma[k], beta[k]} (both optional as a pair); out {y[n][k]};
   * params orcd_op_norm_params (group_size must be 0). In place ok. */
  ORCD_OP_LAYER_NORM = 6,
  /* in {x[n][heads * head_dim]}; w {} or {freq_factors[n_rot / 2]};
   * out {y[n][same]}; params orcd_op_rope_params. In place ok. */
  ORCD_OP_ROPE = 7,
  /* in {q[n][n_head * head_dim], k[n][n_head_kv * head_dim], v[n][same as k]};
   * w {} or {sinks[n_head]}; out {o[n][n_head * head_dim]};
   * params orcd_op_attention_params. Attends causally (each query sees the
   * positions up to its own, limited by the state's sliding window) and stores
   * k and v at the batch's positions in the KV state of params.kv_layer. A
   * state with a sliding window keeps only its window of positions. */
  ORCD_OP_ATTENTION = 8,
  /* in {gate[n][f], up[n][f]} -> out {y[n][f]} = silu(gate) * up, or the fused
   * layout in {gate_up[n][2f]} (gate first) -> out {y[n][f]}. No params. */
  ORCD_OP_SWIGLU = 9,
  /* Since 1.6: as SWIGLU with y = gelu(gate) * up, gelu as ORCD_OP_GELU
   * (the gated GELU FFN of Gemma). No params. */
  ORCD_OP_GEGLU = 10,
  /* in {x[n][k]}; out {y[n][k]} = gelu(x), the tanh approximation
   * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). In place ok. No params. */
  ORCD_OP_GELU = 11,
  /* Mixture of experts: in {x[n][d], router_logits[n][E]};
   * w {gate_exps[d, f, E], up_exps[d, f, E], down_exps[f, d, E]} optionally
   * followed by {gate_bias[f, E], up_bias[f, E], down_bias[d, E]};
   * out {y[n][d]}; params orcd_op_moe_params. Per token: picks
   * n_expert_used experts from the router logits, runs each picked expert's
   * FFN (only those experts' weights are read) and sums the outputs weighted
   * by the gating function. */
  ORCD_OP_MOE = 12,
  /* The LM head: in {x[n][d]}; w {W[d, vocab]}; out {logits[r][vocab]} where r
   * is the number of positions whose logits the caller asked for (the last
   * token, or every token). params orcd_op_logits_params, optional. Its output
   * must be the phase's logits register (set_logits) and is read by no other
   * instruction. */
  ORCD_OP_LOGITS = 13,
  /* Learned absolute positions: in {}; w {table[d, n_positions]};
   * out {x[n][d]} = rows (slot position + t) of the table for token t. A
   * position past the table's rows is a run-time error. No params. */
  ORCD_OP_POSITION_EMBEDDING = 14
};

#define ORCD_OP_MAX_OUTPUTS 4

typedef struct orcd_op_embedding_params {
  float scale; /* multiplies every row looked up (Gemma: sqrt(d)); > 0. Absent: 1 */
} orcd_op_embedding_params;

typedef struct orcd_op_matmul_params {
  /* Rows of W written to outputs[i]; used only with more than one output. */
  uint32_t output_rows[ORCD_OP_MAX_OUTPUTS];
} orcd_op_matmul_params;

typedef struct orcd_op_norm_params {
  float eps;
  uint32_t group_size; /* 0 = the whole row (RMS_NORM only: per-head norms) */
} orcd_op_norm_params;

typedef enum orcd_rope_mode {
  ORCD_ROPE_NORMAL = 0, /* rotate adjacent pairs (2i, 2i+1): llama  */
  ORCD_ROPE_NEOX = 2    /* rotate halves (i, i + n_rot/2): qwen2, phi3 (ggml's number) */
} orcd_rope_mode;

typedef struct orcd_op_rope_params {
  uint32_t mode;     /* orcd_rope_mode */
  uint32_t head_dim; /* elements per head in the register */
  uint32_t n_rot;    /* rotated leading elements of each head (even, <= head_dim) */
  float freq_base;   /* theta_i = pos * freq_base^(-2i / n_rot) */
  float freq_scale;  /* 1 / linear scaling factor; 1 = none */
  /* YaRN (ggml's rope_yarn); ext_factor 0 turns it off, attn_factor 1 = none. */
  float ext_factor;
  float attn_factor;
  float beta_fast;
  float beta_slow;
  uint32_t n_ctx_orig; /* the training context YaRN's ramp refers to */
} orcd_op_rope_params;

typedef struct orcd_op_attention_params {
  uint32_t kv_layer; /* the orcd_kv_state_desc.layer whose cache this uses */
  uint32_t n_head;
  uint32_t n_head_kv; /* n_head is a multiple of it (GQA; equal = MHA) */
  uint32_t head_dim;  /* of q, k and v */
  float scale;        /* multiplies q.k before the softmax, e.g. 1/sqrt(head_dim) */
  float softcap;      /* 0 = off; else scores = softcap * tanh(scores / softcap) */
} orcd_op_attention_params;

typedef struct orcd_op_logits_params {
  float softcap; /* 0 = off */
} orcd_op_logits_params;

typedef enum orcd_moe_gating {
  /* top-k by logit, then softmax over the k picked logits (gpt-oss) */
  ORCD_MOE_GATING_SOFTMAX_TOPK = 0,
  /* softmax over all E logits, then top-k of the probabilities, optionally
   * renormalised to sum 1 (mixtral, qwen-moe) */
  ORCD_MOE_GATING_SOFTMAX = 1
} orcd_moe_gating;

typedef enum orcd_moe_activation {
  /* h = silu(g) * u */
  ORCD_MOE_ACT_SWIGLU = 0,
  /* gpt-oss: g = min(g, limit); u = clamp(u, -limit, limit);
   * h = g * sigmoid(alpha g) * (u + 1) */
  ORCD_MOE_ACT_SWIGLU_OAI = 1,
  /* h = gelu(g) * u: ORCD_OP_GEGLU's (since 1.6; MOE does not take it) */
  ORCD_MOE_ACT_GEGLU = 2
} orcd_moe_activation;

typedef struct orcd_op_moe_params {
  uint32_t n_expert;          /* E: experts in the weights */
  uint32_t n_expert_used;     /* k: experts picked per token, 1..E */
  uint32_t gating;            /* orcd_moe_gating */
  uint32_t activation;        /* orcd_moe_activation */
  uint32_t normalize_weights; /* ORCD_MOE_GATING_SOFTMAX: renormalise the k */
  float alpha;                /* SWIGLU_OAI: sigmoid slope (1.702) */
  float limit;                /* SWIGLU_OAI: clamp (7) */
} orcd_op_moe_params;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ORCD_OPS_H_ */
