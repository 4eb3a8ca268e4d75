// The orcd_quant_cuda_ops a quant plugin hands to the host: argument checks,
// then the type's launcher from the kernel library, with CUDA failures turned
// into ORCD_ERR_DEVICE errors made by the host's services.
#include <string>

#include "common/cuda_kernel_set.h"
#include "common/plugin_support.h"
#include "orcd/ops.h"

namespace orcd::quant {
namespace {

orcd_error* invalid(const CudaKernels& k, const char* op, const std::string& why) {
  return make_error(ORCD_ERR_INVALID_ARGUMENT, std::string(k.name) + " " + op + ": " + why);
}

orcd_error* device_result(const CudaKernels& k, const char* op, cudaError_t e) {
  if (e == cudaSuccess) return nullptr;
  return make_error(ORCD_ERR_DEVICE, std::string(k.name) + " " + op + ": " + cudaGetErrorName(e) +
                                         ": " + cudaGetErrorString(e));
}

// matvec_q8's arguments: whole blocks (so whole 32-value runs) and a 4-byte
// aligned activation array.
std::string check_q8_args(uint32_t block_elems, const void* w, int64_t rows, int64_t cols,
                          const orcd_q8_x32* xq, float* y) {
  if (w == nullptr || xq == nullptr || y == nullptr) return "null pointer";
  if (rows < 0 || cols <= 0 || cols % block_elems != 0 || cols % 32 != 0) {
    return "cols must be a positive multiple of the block size and of 32";
  }
  if (reinterpret_cast<uintptr_t>(xq) % 4 != 0) return "activations not 4-byte aligned";
  return {};
}

// The expert stacks' arguments of matvec_ids_q8 and matvec_glu_q8 (ids: null
// means expert 0, allowed for one pick only).
std::string check_experts_q8_args(const CudaKernels& k, const void* w, int64_t rows, int64_t cols,
                                  int64_t expert_stride, const int32_t* ids, int64_t n_ids,
                                  int64_t ids_per_x, const orcd_q8_x32* xq, int64_t xq_stride,
                                  float* y, int64_t y_stride) {
  if (std::string e = check_q8_args(k.block_elems, w, rows, cols, xq, y); !e.empty()) return e;
  const int64_t row_bytes = cols / k.block_elems * k.block_bytes;
  if (n_ids < 0 || (ids == nullptr && n_ids > 1) || ids_per_x <= 0 || xq_stride < cols / 32 ||
      y_stride < rows || expert_stride < rows * row_bytes || expert_stride % k.block_bytes != 0) {
    return "bad ids, strides or expert stride";
  }
  return {};
}

template <orcd_ggml_type kType>
struct CudaOps {
  static const CudaKernels& kernels() {
    static const CudaKernels* const k = find_cuda_kernels(kType);
    return *k;
  }

  static orcd_error* get_rows(const void* w, int64_t cols, const int32_t* ids, int64_t n_ids,
                              float* out, void* stream) {
    const CudaKernels& k = kernels();
    if (std::string e = check_get_rows_args(k.block_elems, w, cols, ids, n_ids, out); !e.empty()) {
      return invalid(k, "get_rows", e);
    }
    return device_result(k, "get_rows",
                         k.get_rows(w, cols, ids, n_ids, out, static_cast<cudaStream_t>(stream)));
  }

  static orcd_error* get_rows_f16(const void* w, int64_t cols, const int32_t* ids, int64_t n_ids,
                                  uint16_t* out, void* stream) {
    const CudaKernels& k = kernels();
    if (std::string e = check_get_rows_args(k.block_elems, w, cols, ids, n_ids, out); !e.empty()) {
      return invalid(k, "get_rows_f16", e);
    }
    return device_result(
        k, "get_rows_f16",
        k.get_rows_f16(w, cols, ids, n_ids, out, static_cast<cudaStream_t>(stream)));
  }

  static orcd_error* matvec(const void* w, int64_t rows, int64_t cols, const float* x, float* y,
                            void* stream) {
    const CudaKernels& k = kernels();
    if (std::string e = check_matmul_args(k.block_elems, w, rows, cols, x, 1, y, rows);
        !e.empty()) {
      return invalid(k, "matvec", e);
    }
    return device_result(k, "matvec",
                         k.matvec(w, rows, cols, x, y, static_cast<cudaStream_t>(stream)));
  }

  static orcd_error* matmul(const void* w, int64_t rows, int64_t cols, const float* x,
                            int64_t n_tokens, float* y, int64_t y_stride, void* stream) {
    const CudaKernels& k = kernels();
    if (std::string e = check_matmul_args(k.block_elems, w, rows, cols, x, n_tokens, y, y_stride);
        !e.empty()) {
      return invalid(k, "matmul", e);
    }
    return device_result(
        k, "matmul",
        k.matmul(w, rows, cols, x, n_tokens, y, y_stride, static_cast<cudaStream_t>(stream)));
  }

  static orcd_error* matvec_ids(const void* w, int64_t rows, int64_t cols, int64_t expert_stride,
                                const int32_t* ids, int64_t n_ids, int64_t ids_per_x,
                                const float* x, int64_t x_stride, float* y, int64_t y_stride,
                                void* stream) {
    const CudaKernels& k = kernels();
    if (std::string e = check_matmul_args(k.block_elems, w, rows, cols, x, 1, y, rows);
        !e.empty()) {
      return invalid(k, "matvec_ids", e);
    }
    const int64_t row_bytes = cols / k.block_elems * k.block_bytes;
    if (ids == nullptr || n_ids < 0 || ids_per_x <= 0 || x_stride < cols || y_stride < rows ||
        expert_stride < rows * row_bytes || expert_stride % k.block_bytes != 0) {
      return invalid(k, "matvec_ids", "bad ids, strides or expert stride");
    }
    return device_result(k, "matvec_ids",
                         k.matvec_ids(w, rows, cols, expert_stride, ids, n_ids, ids_per_x, x,
                                      x_stride, y, y_stride, static_cast<cudaStream_t>(stream)));
  }

  static orcd_error* matvec_q8(const void* w, int64_t rows, int64_t cols, const orcd_q8_x32* xq,
                               float* y, void* stream) {
    const CudaKernels& k = kernels();
    if (k.matvec_q8 == nullptr)
      return make_error(ORCD_ERR_UNSUPPORTED, std::string(k.name) + " matvec_q8: not served");
    if (std::string e = check_q8_args(k.block_elems, w, rows, cols, xq, y); !e.empty()) {
      return invalid(k, "matvec_q8", e);
    }
    return device_result(k, "matvec_q8",
                         k.matvec_q8(w, rows, cols, xq, y, static_cast<cudaStream_t>(stream)));
  }

  static orcd_error* matvec_ids_q8(const void* w, int64_t rows, int64_t cols, int64_t expert_stride,
                                   const int32_t* ids, int64_t n_ids, int64_t ids_per_x,
                                   const orcd_q8_x32* xq, int64_t xq_stride, float* y,
                                   int64_t y_stride, void* stream) {
    const CudaKernels& k = kernels();
    if (k.matvec_ids_q8 == nullptr)
      return make_error(ORCD_ERR_UNSUPPORTED, std::string(k.name) + " matvec_ids_q8: not served");
    if (ids == nullptr) return invalid(k, "matvec_ids_q8", "null ids");
    if (std::string e = check_experts_q8_args(k, w, rows, cols, expert_stride, ids, n_ids,
                                              ids_per_x, xq, xq_stride, y, y_stride);
        !e.empty()) {
      return invalid(k, "matvec_ids_q8", e);
    }
    return device_result(
        k, "matvec_ids_q8",
        k.matvec_ids_q8(w, rows, cols, expert_stride, ids, n_ids, ids_per_x, xq, xq_stride, y,
                        y_stride, static_cast<cudaStream_t>(stream)));
  }

  static orcd_error* matvec_glu_q8(const void* gate, const void* up, int64_t rows, int64_t cols,
                                   int64_t expert_stride, const int32_t* ids, int64_t n_ids,
                                   int64_t ids_per_x, const orcd_q8_x32* xq, int64_t xq_stride,
                                   const orcd_glu_params* glu, float* y, int64_t y_stride,
                                   void* stream) {
    const CudaKernels& k = kernels();
    if (k.matvec_glu_q8 == nullptr)
      return make_error(ORCD_ERR_UNSUPPORTED, std::string(k.name) + " matvec_glu_q8: not served");
    if (up == nullptr || glu == nullptr) return invalid(k, "matvec_glu_q8", "null pointer");
    if (std::string e = check_experts_q8_args(k, gate, rows, cols, expert_stride, ids, n_ids,
                                              ids_per_x, xq, xq_stride, y, y_stride);
        !e.empty()) {
      return invalid(k, "matvec_glu_q8", e);
    }
    if (glu->activation != ORCD_MOE_ACT_SWIGLU && glu->activation != ORCD_MOE_ACT_SWIGLU_OAI)
      return invalid(k, "matvec_glu_q8", "unknown activation");
    return device_result(
        k, "matvec_glu_q8",
        k.matvec_glu_q8(gate, up, rows, cols, expert_stride, ids, n_ids, ids_per_x, xq, xq_stride,
                        glu, y, y_stride, static_cast<cudaStream_t>(stream)));
  }

  static orcd_error* matvec_multi_q8(const orcd_matvec_part* parts, int32_t n_parts, int64_t cols,
                                     const orcd_q8_x32* xq, void* stream) {
    const CudaKernels& k = kernels();
    if (k.matvec_multi_q8 == nullptr)
      return make_error(ORCD_ERR_UNSUPPORTED, std::string(k.name) + " matvec_multi_q8: not served");
    if (parts == nullptr || n_parts < 1 || n_parts > 4)
      return invalid(k, "matvec_multi_q8", "1 to 4 parts");
    for (int32_t j = 0; j < n_parts; ++j) {
      const orcd_matvec_part& p = parts[j];
      if (std::string e = check_q8_args(k.block_elems, p.d_w, p.rows, cols, xq, p.d_y); !e.empty())
        return invalid(k, "matvec_multi_q8", "part " + std::to_string(j) + ": " + e);
    }
    return device_result(
        k, "matvec_multi_q8",
        k.matvec_multi_q8(parts, n_parts, cols, xq, static_cast<cudaStream_t>(stream)));
  }

  static orcd_error* matvec_xs_q8(const void* w, int64_t rows, int64_t cols, const orcd_q8_x32* xq,
                                  int64_t xq_stride, int64_t n_x, float* y, int64_t y_stride,
                                  void* stream) {
    const CudaKernels& k = kernels();
    if (k.matvec_xs_q8 == nullptr)
      return make_error(ORCD_ERR_UNSUPPORTED, std::string(k.name) + " matvec_xs_q8: not served");
    if (std::string e = check_q8_args(k.block_elems, w, rows, cols, xq, y); !e.empty())
      return invalid(k, "matvec_xs_q8", e);
    if (n_x < 0 || xq_stride < cols / 32 || y_stride < rows)
      return invalid(k, "matvec_xs_q8", "bad row count or strides");
    return device_result(k, "matvec_xs_q8",
                         k.matvec_xs_q8(w, rows, cols, xq, xq_stride, n_x, y, y_stride,
                                        static_cast<cudaStream_t>(stream)));
  }

  static constexpr orcd_quant_cuda_ops kOps = {sizeof(orcd_quant_cuda_ops),
                                               &get_rows,
                                               &matvec,
                                               &matmul,
                                               &matvec_ids,
                                               &matvec_q8,
                                               &matvec_ids_q8,
                                               &matvec_glu_q8,
                                               &matvec_multi_q8,
                                               &matvec_xs_q8,
                                               &get_rows_f16};
};

}  // namespace

const orcd_quant_cuda_ops* cuda_plugin_ops(orcd_ggml_type type) {
  switch (type) {
#define ORCD_QUANT_TYPE(plugin, T) \
  case ORCD_TYPE_##T:              \
    return &CudaOps<ORCD_TYPE_##T>::kOps;
#include "common/type_list.def"
#undef ORCD_QUANT_TYPE
    default:
      return nullptr;
  }
}

}  // namespace orcd::quant
