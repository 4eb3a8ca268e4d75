/*
 * orcd plugin SDK, ABI v1 — the whole contract between orcd-host and a plugin.
 *
 * C only: no C++ types, no exceptions and no ownership crosses this boundary
 * except through the functions declared here. A plugin is a shared object
 * exporting one symbol, ORCD_PLUGIN_ENTRY_SYMBOL, of type orcd_plugin_entry_fn.
 * See sdk/README.md for the rules (versioning, threading, memory).
 */
#ifndef ORCD_PLUGIN_H_
#define ORCD_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versioning ------------------------------------------------------- */

/* A host accepts a plugin whose major equals its own and whose minor is not
 * newer than its own. Minors only append fields to the end of structs; every
 * struct starts with struct_size so either side can tell which fields exist. */
#define ORCD_ABI_MAJOR 1
#define ORCD_ABI_MINOR 9

/* True when struct `s` (of type `type`, starting with struct_size) holds
 * `field`: a field appended by a later minor reads as absent from a struct
 * built against an earlier one. History: 1.1 added orcd_quant_cpu_ops.matvec_q8;
 * 1.2 added orcd_quant_cuda_ops.matvec_ids and orcd_arch_plugin.chat_defaults;
 * 1.3 added orcd_q8_x32 and orcd_quant_cuda_ops.matvec_q8 / matvec_ids_q8;
 * 1.4 added orcd_quant_cpu_ops.matmul_q8;
 * 1.5 added orcd_glu_params, orcd_matvec_part and orcd_quant_cuda_ops.matvec_glu_q8 /
 * matvec_multi_q8;
 * 1.6 added ORCD_OP_GEGLU (ORCD_MOE_ACT_GEGLU) and orcd_op_embedding_params (ops.h);
 * 1.7 added orcd_quant_cuda_ops.matvec_xs_q8; 1.8 added orcd_quant_cuda_ops.get_rows_f16;
 * 1.9 added orcd_quant_cpu_ops.matmul_q8_decode. */
#define ORCD_HAS_FIELD(s, type, field) \
  ((s)->struct_size >= offsetof(type, field) + sizeof(((type*)0)->field))

#define ORCD_PLUGIN_ENTRY_SYMBOL "orcd_plugin_v1"

#if defined(_WIN32)
#define ORCD_PLUGIN_EXPORT __declspec(dllexport)
#else
#define ORCD_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* ---- Status and errors ------------------------------------------------ */

/* Stable codes; numeric values never change within a major. */
typedef enum orcd_status {
  ORCD_OK = 0,
  ORCD_ERR_INVALID_ARGUMENT = 1, /* caller passed something out of contract */
  ORCD_ERR_UNSUPPORTED = 2,      /* valid, but this plugin cannot do it      */
  ORCD_ERR_MODEL_INVALID = 3,    /* the GGUF lacks or mis-sizes something    */
  ORCD_ERR_OUT_OF_MEMORY = 4,    /* host or device allocation failed         */
  ORCD_ERR_DEVICE = 5,           /* CUDA runtime / kernel launch failure     */
  ORCD_ERR_INTERNAL = 99
} orcd_status;

/* Opaque error object. NULL means success. Created only through
 * orcd_host_services.error_new; the receiver of an error owns it and
 * releases it with orcd_host_services.error_free. */
typedef struct orcd_error orcd_error;

/* ---- Host services (host -> plugin) ----------------------------------- */

typedef enum orcd_log_level {
  ORCD_LOG_DEBUG = 0,
  ORCD_LOG_INFO = 1,
  ORCD_LOG_WARN = 2,
  ORCD_LOG_ERROR = 3
} orcd_log_level;

typedef enum orcd_backend { ORCD_BACKEND_CPU = 0, ORCD_BACKEND_CUDA = 1 } orcd_backend;

/* Everything a plugin may ask of the host. Valid for the plugin's lifetime.
 * Functions are thread-safe unless noted. */
typedef struct orcd_host_services {
  uint32_t struct_size;
  uint16_t abi_major;
  uint16_t abi_minor;

  /* Logging through the host's structured logger. `plugin` names the caller. */
  void (*log)(orcd_log_level level, const char* plugin, const char* message);

  /* Error objects (see orcd_error). error_message never returns NULL. */
  orcd_error* (*error_new)(orcd_status code, const char* message);
  orcd_status (*error_code)(const orcd_error* error);
  const char* (*error_message)(const orcd_error* error);
  void (*error_free)(orcd_error* error);

  /* Host memory for plugin-owned state (aligned; alignment a power of two). */
  void* (*host_alloc)(size_t bytes, size_t alignment);
  void (*host_free)(void* ptr);

  /* Device memory on the host's device; counted in the host's VRAM
   * accounting. On the CPU backend these return ORCD_ERR_UNSUPPORTED. */
  orcd_error* (*device_alloc)(size_t bytes, void** out_ptr);
  void (*device_free)(void* ptr);

  /* The backend the host runs, and on CUDA the host's stream (a cudaStream_t)
   * on which every plugin kernel must be launched. NULL on CPU. */
  orcd_backend (*backend)(void);
  void* (*cuda_stream)(void);
} orcd_host_services;

/* ---- ggml tensor types ------------------------------------------------ */

/* Values are ggml's `enum ggml_type`, the numbers stored in GGUF files. */
typedef enum orcd_ggml_type {
  ORCD_TYPE_F32 = 0,
  ORCD_TYPE_F16 = 1,
  ORCD_TYPE_Q4_0 = 2,
  ORCD_TYPE_Q4_1 = 3,
  ORCD_TYPE_Q5_0 = 6,
  ORCD_TYPE_Q5_1 = 7,
  ORCD_TYPE_Q8_0 = 8,
  ORCD_TYPE_Q8_1 = 9,
  ORCD_TYPE_Q2_K = 10,
  ORCD_TYPE_Q3_K = 11,
  ORCD_TYPE_Q4_K = 12,
  ORCD_TYPE_Q5_K = 13,
  ORCD_TYPE_Q6_K = 14,
  ORCD_TYPE_Q8_K = 15,
  ORCD_TYPE_I8 = 24,
  ORCD_TYPE_I16 = 25,
  ORCD_TYPE_I32 = 26,
  ORCD_TYPE_I64 = 27,
  ORCD_TYPE_F64 = 28,
  ORCD_TYPE_BF16 = 30,
  ORCD_TYPE_MXFP4 = 39
} orcd_ggml_type;

/* ---- Quant plugins ------------------------------------------------------ */

/* Layout conventions for every quant function:
 *  - A weight matrix has `rows` rows of `cols` elements; each row is
 *    cols / block_elems blocks stored back to back (ggml's layout: ne0 = cols).
 *    cols is always a multiple of block_elems (the host checks at load).
 *  - Activations x are f32, row-major [n_tokens][cols].
 *  - Outputs y are f32, y[t * y_stride + r] for token t and weight row r.
 *  - CPU functions are pure: no allocation, no globals written, callable from
 *    many threads at once on disjoint outputs. The host splits work across its
 *    threads by row ranges (offsetting `w` by whole rows and `y` by rows). */
typedef struct orcd_quant_cpu_ops {
  uint32_t struct_size;
  /* n elements (a multiple of block_elems) from blocks to floats. */
  void (*dequantize_row)(const void* blocks, float* out, int64_t n);
  /* Reference quantizer (ggml's *_ref semantics, no importance matrix). */
  void (*quantize_row)(const float* in, void* blocks, int64_t n);
  /* Embedding lookup: out[i][:] = dequantized row ids[i] of w. */
  void (*get_rows)(const void* w, int64_t cols, const int32_t* ids, int64_t n_ids, float* out);
  /* y = W x for n_tokens tokens, block by block (no dequantized copy). */
  void (*matmul)(const void* w, int64_t rows, int64_t cols, const float* x, int64_t n_tokens,
                 float* y, int64_t y_stride);
  /* Since 1.1, optional (NULL, or absent: check with ORCD_HAS_FIELD). One
   * token, y = W x with x first rounded to int8 with one scale per weight
   * block's span (amax / 127, round to nearest), integer dot products per
   * block: llama.cpp's CPU arithmetic for decode (its Q8_0 / Q8_K), results
   * within that rounding of matmul's. */
  void (*matvec_q8)(const void* w, int64_t rows, int64_t cols, const float* x, float* y);
  /* Since 1.4, optional (NULL, or absent: check with ORCD_HAS_FIELD). Many
   * tokens (prefill) with matvec_q8's arithmetic: y[t * y_stride + r] has the
   * bits matvec_q8 gives for token t and row r (same activation rounding,
   * same integer dots, same float order). Tiled so that each weight block is
   * unpacked once per few tokens: llama.cpp's CPU arithmetic for prefill. */
  void (*matmul_q8)(const void* w, int64_t rows, int64_t cols, const float* x, int64_t n_tokens,
                    float* y, int64_t y_stride);
  /* Since 1.9, optional (NULL, or absent: check with ORCD_HAS_FIELD). matmul_q8's
   * contract (y[t * y_stride + r] has matvec_q8's bits for token t and row r)
   * for the generated tokens of a batched decode step: a few to a few dozen
   * tokens, each weight block unpacked once for them. The host uses it for
   * such tokens where present and matmul_q8 for prompts, so a plugin can
   * offer a decode kernel where its 8-bit GEMM would lose to the host's f32
   * GEMM on prompts (AVX2's Q5_0 / Q8_0) and leave matmul_q8 NULL there. */
  void (*matmul_q8_decode)(const void* w, int64_t rows, int64_t cols, const float* x,
                           int64_t n_tokens, float* y, int64_t y_stride);
} orcd_quant_cpu_ops;

/* Since 1.3: 32 consecutive activations rounded to 8 bits, the input of the
 * CUDA matvec_q8 ops (llama.cpp's q8_1 arithmetic): x[i] ~= d * qs[i] with
 * d = max|x| / 127 and qs = nearest(x * (1 / d)) (0 when d is 0). A row of
 * `cols` activations is cols / 32 of these, 36 bytes each, 4-byte aligned. */
typedef struct orcd_q8_x32 {
  float d;
  int8_t qs[32];
} orcd_q8_x32;

/* Device-pointer counterparts, launched on the stream passed in (the host's).
 * Return NULL on success or an error from host->error_new. */
/* The gated activation a fused gate/up matvec applies to each output pair:
 * activation is an orcd_moe_activation (orcd/ops.h; orcd/cpp/gated_activation.h
 * defines them); alpha and limit are SWIGLU_OAI's. Biases (device memory,
 * NULL for none) hold `rows` floats per expert and are added to the dot
 * products before the activation. Read by the host call, not kept. */
typedef struct orcd_glu_params {
  uint32_t activation;
  float alpha;
  float limit;
  const float* d_gate_bias;
  const float* d_up_bias;
} orcd_glu_params;

/* One weight of a matvec_multi_q8: `rows` rows (device memory) and where
 * their dots go. */
typedef struct orcd_matvec_part {
  const void* d_w;
  int64_t rows;
  float* d_y;
} orcd_matvec_part;

typedef struct orcd_quant_cuda_ops {
  uint32_t struct_size;
  orcd_error* (*get_rows)(const void* d_w, int64_t cols, const int32_t* d_ids, int64_t n_ids,
                          float* d_out, void* stream);
  /* Decode: one token. */
  orcd_error* (*matvec)(const void* d_w, int64_t rows, int64_t cols, const float* d_x, float* d_y,
                        void* stream);
  /* Prefill: n_tokens tokens, y[t * y_stride + r]. */
  orcd_error* (*matmul)(const void* d_w, int64_t rows, int64_t cols, const float* d_x,
                        int64_t n_tokens, float* d_y, int64_t y_stride, void* stream);
  /* Since 1.2, optional (NULL, or absent: check with ORCD_HAS_FIELD). Mixture
   * of experts without a host round trip: d_w is a stack of experts, each
   * `rows` rows of `cols`, expert_stride bytes apart; for i in [0, n_ids):
   * y[i * y_stride + r] = W_{d_ids[i]}[r] . x[(i / ids_per_x) * x_stride ..].
   * d_ids (int32, device memory) are not read by the host. */
  orcd_error* (*matvec_ids)(const void* d_w, int64_t rows, int64_t cols, int64_t expert_stride,
                            const int32_t* d_ids, int64_t n_ids, int64_t ids_per_x,
                            const float* d_x, int64_t x_stride, float* d_y, int64_t y_stride,
                            void* stream);
  /* Since 1.3, optional (NULL, or absent). Decode with 8-bit activations: the
   * host rounds x once per matmul input into d_xq (cols / 32 orcd_q8_x32),
   * the plugin multiplies each weight block with integer dot products (dp4a)
   * and scales once per block: memory-bound where matvec is instruction-bound.
   * Results within the activation rounding of matvec's. */
  orcd_error* (*matvec_q8)(const void* d_w, int64_t rows, int64_t cols, const orcd_q8_x32* d_xq,
                           float* d_y, void* stream);
  /* matvec_ids with 8-bit activations: x row j is d_xq + j * xq_stride (in
   * orcd_q8_x32 units). */
  orcd_error* (*matvec_ids_q8)(const void* d_w, int64_t rows, int64_t cols, int64_t expert_stride,
                               const int32_t* d_ids, int64_t n_ids, int64_t ids_per_x,
                               const orcd_q8_x32* d_xq, int64_t xq_stride, float* d_y,
                               int64_t y_stride, void* stream);
  /* Since 1.5, optional (NULL, or absent). A gated feed-forward's first half
   * in one launch: for i in [0, n_ids), r in [0, rows), with e = d_ids[i]
   * (expert 0 when d_ids is NULL) and x = d_xq + (i / ids_per_x) * xq_stride,
   *   g = Wgate_e[r] . x (+ d_gate_bias[e * rows + r]),  u likewise from Wup,
   *   y[i * y_stride + r] = act(g, u)
   * with each dot matvec_ids_q8's bits. d_gate and d_up are two stacks of
   * experts of this type (expert_stride bytes apart; one expert: any stride
   * >= its size). Saves the host the second matvec and the activation. */
  orcd_error* (*matvec_glu_q8)(const void* d_gate, const void* d_up, int64_t rows, int64_t cols,
                               int64_t expert_stride, const int32_t* d_ids, int64_t n_ids,
                               int64_t ids_per_x, const orcd_q8_x32* d_xq, int64_t xq_stride,
                               const orcd_glu_params* glu, float* d_y, int64_t y_stride,
                               void* stream);
  /* Since 1.5, optional. Up to 4 matvec_q8 with one x in one launch (Q, K and
   * V, or a split output's parts): parts[j].d_y[r] = W_j[r] . x, each W_j
   * `cols` columns of this type, each dot matvec_q8's bits. */
  orcd_error* (*matvec_multi_q8)(const orcd_matvec_part* parts, int32_t n_parts, int64_t cols,
                                 const orcd_q8_x32* d_xq, void* stream);
  /* Since 1.7, optional. One weight times n_x activation rows (several
   * sequences' decode tokens in one step): for t in [0, n_x), r in [0, rows),
   * y[t * y_stride + r] = W[r] . (d_xq + t * xq_stride), each dot matvec_q8's
   * bits, each weight block read once for several rows. */
  orcd_error* (*matvec_xs_q8)(const void* d_w, int64_t rows, int64_t cols, const orcd_q8_x32* d_xq,
                              int64_t xq_stride, int64_t n_x, float* d_y, int64_t y_stride,
                              void* stream);
  /* Since 1.8, optional. get_rows straight to IEEE half bits: each value is
   * get_rows' float rounded to nearest even, in one pass, so the host's
   * tensor-core prefill gets its f16 operand without an f32 copy between. */
  orcd_error* (*get_rows_f16)(const void* d_w, int64_t cols, const int32_t* d_ids, int64_t n_ids,
                              uint16_t* d_out, void* stream);
} orcd_quant_cuda_ops;

/* One ggml type served by a quant plugin. */
typedef struct orcd_quant_type {
  uint32_t struct_size;
  orcd_ggml_type type;
  const char* name;                /* ggml's name: "Q4_K", "MXFP4", ... */
  uint32_t block_elems;            /* elements per block */
  uint32_t block_bytes;            /* bytes per block    */
  const orcd_quant_cpu_ops* cpu;   /* required */
  const orcd_quant_cuda_ops* cuda; /* NULL when built without CUDA */
} orcd_quant_type;

typedef struct orcd_quant_plugin {
  uint32_t struct_size;
  uint32_t n_types;
  const orcd_quant_type* types;
} orcd_quant_plugin;

/* ---- Model view (host -> architecture plugin) ---------------------------- */

/* Read-only view of a loaded GGUF: typed metadata and tensor descriptors.
 * Valid during compile(). Strings returned are owned by the host. */
typedef struct orcd_model_view orcd_model_view;

typedef struct orcd_tensor_desc {
  uint32_t struct_size;
  const char* name;
  orcd_ggml_type type;
  uint32_t n_dims;
  int64_t ne[4]; /* ggml order: ne[0] is the row length */
  uint64_t n_bytes;
} orcd_tensor_desc;

typedef struct orcd_model_view_ops {
  uint32_t struct_size;
  /* Each getter returns 1 and writes *out when the key exists with a
   * compatible type (any integer type for u64/i64 within range, f32 or f64
   * for f64), else 0 and leaves *out untouched. */
  int (*get_u64)(const orcd_model_view* m, const char* key, uint64_t* out);
  int (*get_i64)(const orcd_model_view* m, const char* key, int64_t* out);
  int (*get_f64)(const orcd_model_view* m, const char* key, double* out);
  int (*get_bool)(const orcd_model_view* m, const char* key, int* out);
  int (*get_string)(const orcd_model_view* m, const char* key, const char** out);
  /* Length of an array-valued key, 0 when absent or not an array. */
  uint64_t (*array_length)(const orcd_model_view* m, const char* key);
  /* Tensor lookup by name: 1 and *out filled, or 0 when absent. */
  int (*find_tensor)(const orcd_model_view* m, const char* name, orcd_tensor_desc* out);
  uint64_t (*tensor_count)(const orcd_model_view* m);
  int (*tensor_at)(const orcd_model_view* m, uint64_t index, orcd_tensor_desc* out);
} orcd_model_view_ops;

/* ---- Execution plans (architecture plugin -> host) ------------------------ */

/* Plans are built through an opaque builder the host owns. Registers are
 * small integers naming activation tensors; the host infers their shapes
 * when it validates the plan and reuses their memory by liveness. */
typedef struct orcd_plan_builder orcd_plan_builder;

typedef enum orcd_plan_phase { ORCD_PHASE_PREFILL = 0, ORCD_PHASE_DECODE = 1 } orcd_plan_phase;

/* Host macro-ops. Parameter blocks are the orcd_op_*_params structs in
 * orcd/ops.h; a plugin may register its own opcodes >= ORCD_OP_PLUGIN_BASE.
 * Opcodes 0x8000..ORCD_OP_PLUGIN_BASE-1 are the host's own (the fused ops its
 * lowering step makes from a plan): a plan naming one is refused. */
typedef uint32_t orcd_opcode;
#define ORCD_OP_PLUGIN_BASE 0x10000u

typedef struct orcd_instruction {
  uint32_t struct_size;
  orcd_opcode opcode;
  const int32_t* inputs; /* registers read  */
  uint32_t n_inputs;
  const int32_t* outputs; /* registers written */
  uint32_t n_outputs;
  const char* const* weights; /* tensor names, resolved by the host */
  uint32_t n_weights;
  const void* params; /* copied by the host; immutable afterwards */
  uint32_t params_size;
} orcd_instruction;

/* Per-layer KV state the plan's attention instructions refer to by layer. */
typedef struct orcd_kv_state_desc {
  uint32_t struct_size;
  uint32_t layer;
  uint32_t n_kv_heads;
  uint32_t head_dim;
  uint32_t sliding_window; /* 0 = full context */
} orcd_kv_state_desc;

typedef struct orcd_plan_builder_ops {
  uint32_t struct_size;
  orcd_error* (*add_instruction)(orcd_plan_builder* b, orcd_plan_phase phase,
                                 const orcd_instruction* instruction);
  orcd_error* (*add_kv_state)(orcd_plan_builder* b, const orcd_kv_state_desc* desc);
  /* Marks the register holding the logits [n_tokens][n_vocab]. */
  orcd_error* (*set_logits)(orcd_plan_builder* b, orcd_plan_phase phase, int32_t reg);
} orcd_plan_builder_ops;

/* ---- Architecture plugins -------------------------------------------------- */

/* Since 1.2: the conversation format a family uses when its model file
 * carries no chat template the host recognises, and vocabulary quirks GGUF
 * does not record. The host keeps no table of architecture names: these come
 * from the plugin that serves the architecture. */
typedef struct orcd_chat_defaults {
  uint32_t struct_size;
  const char* architecture;   /* one of the plugin's architectures */
  const char* chat_format;    /* "chatml" | "role-tags" | "harmony" */
  const char* default_system; /* system prompt when none is given; NULL or "" = none */
  /* 1: the family's HF tokenizer strips whitespace after its chat special
   * tokens (rstrip), which GGUF has no field for (Phi-3). */
  uint32_t rstrip_chat_tokens;
} orcd_chat_defaults;

typedef struct orcd_arch_plugin {
  uint32_t struct_size;
  /* general.architecture values this plugin serves, e.g. {"llama","qwen2"}. */
  const char* const* architectures;
  uint32_t n_architectures;
  /* Reads the model view and emits the prefill and decode plans. */
  orcd_error* (*compile)(const orcd_model_view* model, const orcd_model_view_ops* view,
                         orcd_plan_builder* builder, const orcd_plan_builder_ops* ops);
  /* Since 1.2, optional (check with ORCD_HAS_FIELD): chat defaults per
   * architecture; NULL / 0 when the plugin has none. */
  const orcd_chat_defaults* chat_defaults;
  uint32_t n_chat_defaults;
} orcd_arch_plugin;

/* ---- The entry point ------------------------------------------------------ */

typedef enum orcd_plugin_kind {
  ORCD_PLUGIN_ARCHITECTURE = 1,
  ORCD_PLUGIN_QUANT = 2
} orcd_plugin_kind;

typedef struct orcd_plugin_descriptor {
  uint32_t struct_size;
  uint16_t abi_major;  /* ORCD_ABI_MAJOR the plugin was built with */
  uint16_t abi_minor;  /* ORCD_ABI_MINOR the plugin was built with */
  const char* name;    /* unique plugin name, e.g. "q4" */
  const char* version; /* the plugin's own version string */
  orcd_plugin_kind kind;
  const orcd_arch_plugin* architecture; /* kind == ORCD_PLUGIN_ARCHITECTURE */
  const orcd_quant_plugin* quant;       /* kind == ORCD_PLUGIN_QUANT */
} orcd_plugin_descriptor;

/* The one exported symbol. Called once after dlopen; `host` stays valid until
 * the plugin is unloaded. The returned descriptor and everything it points to
 * must stay valid until unload. Returns NULL if the plugin cannot run here
 * (it should log why through host->log first). */
typedef const orcd_plugin_descriptor* (*orcd_plugin_entry_fn)(const orcd_host_services* host);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ORCD_PLUGIN_H_ */
