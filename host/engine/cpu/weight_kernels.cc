#include "host/engine/cpu/weight_kernels.h"

#include <algorithm>
#include <cstring>

#include "host/engine/cpu/gemm_f32.h"
#include "host/engine/cpu/simd.h"

namespace orcd::engine::cpu {
namespace {

// Tokens sharing one converted chunk of a weight row, and the chunk length:
// the x tile (kTokenTile x kChunk floats) stays in L1/L2 while the row chunk
// is reused kTokenTile times.
constexpr int64_t kTokenTile = 32;
constexpr int64_t kChunk = 512;

bool IsHostType(uint32_t type) {
  return type == ORCD_TYPE_F32 || type == ORCD_TYPE_F16 || type == ORCD_TYPE_BF16;
}

// Converts elements [c0, c0 + n) of a host-typed row to f32.
void ConvertChunk(uint32_t type, const uint8_t* row, int64_t c0, int64_t n, float* out) {
  const SimdKernels& s = Simd();
  switch (type) {
    case ORCD_TYPE_F32:
      std::memcpy(out, reinterpret_cast<const float*>(row) + c0, n * sizeof(float));
      break;
    case ORCD_TYPE_F16:
      s.f16_to_f32(reinterpret_cast<const uint16_t*>(row) + c0, out, n);
      break;
    default:
      s.bf16_to_f32(reinterpret_cast<const uint16_t*>(row) + c0, out, n);
      break;
  }
}

// Generated tokens on host-typed weights: straight dot products for F32
// and F16 (nothing to convert, or one row read per token); BF16 through f32
// chunks, each token with its own accumulator.
void HostMatmulRows(const WeightRef& w, int64_t row0, int64_t n_rows, const float* x,
                    int64_t n_tokens, float* y, int64_t y_stride) {
  const SimdKernels& s = Simd();
  const int64_t cols = w.cols();
  if (w.type == ORCD_TYPE_F32 || w.type == ORCD_TYPE_F16) {
    for (int64_t r = 0; r < n_rows; ++r) {
      const uint8_t* row = w.row(row0 + r);
      for (int64_t t = 0; t < n_tokens; ++t) {
        const float* xt = x + t * cols;
        y[t * y_stride + r] = w.type == ORCD_TYPE_F32
                                  ? s.dot_f32(reinterpret_cast<const float*>(row), xt, cols)
                                  : s.dot_f16(reinterpret_cast<const uint16_t*>(row), xt, cols);
      }
    }
    return;
  }
  alignas(64) float chunk[kChunk];
  float acc[kTokenTile];
  for (int64_t r = 0; r < n_rows; ++r) {
    const uint8_t* row = w.row(row0 + r);
    for (int64_t t0 = 0; t0 < n_tokens; t0 += kTokenTile) {
      const int64_t nt = std::min(kTokenTile, n_tokens - t0);
      std::fill(acc, acc + nt, 0.0f);
      for (int64_t c0 = 0; c0 < cols; c0 += kChunk) {
        const int64_t n = std::min(kChunk, cols - c0);
        ConvertChunk(w.type, row, c0, n, chunk);
        for (int64_t t = 0; t < nt; ++t) acc[t] += s.dot_f32(chunk, x + (t0 + t) * cols + c0, n);
      }
      for (int64_t t = 0; t < nt; ++t) y[(t0 + t) * y_stride + r] = acc[t];
    }
  }
}

// Prompt (matrix-matrix) path: a tile of weight rows is decoded once into an
// f32 buffer (kRowTile rows x kColChunk columns, 24 KiB: it stays in L1, the
// tensor itself is never dequantized) and multiplied with every token by the
// register-blocked kernel.
constexpr int64_t kRowTile = 12;
constexpr int64_t kColChunk = 512;  // a multiple of every block size (32, 256)

// Columns [c0, c0 + n) of row r, as f32. c0 and n are multiples of the block.
void DecodeRowChunk(const WeightRef& w, int64_t r, int64_t c0, int64_t n, float* out) {
  const uint8_t* row = w.row(r);
  if (IsHostType(w.type)) {
    ConvertChunk(w.type, row, c0, n, out);
    return;
  }
  const uint64_t offset = static_cast<uint64_t>(c0 / w.quant->block_elems) * w.quant->block_bytes;
  w.quant->cpu->dequantize_row(row + offset, out, n);
}

void TiledMatmulRows(const WeightRef& w, int64_t row0, int64_t n_rows, const float* x,
                     int64_t n_tokens, float* y, int64_t y_stride) {
  const int64_t cols = w.cols();
  alignas(64) float tile[kRowTile * kColChunk];
  for (int64_t r = 0; r < n_rows; r += kRowTile) {
    const int64_t rows = std::min(kRowTile, n_rows - r);
    for (int64_t c0 = 0; c0 < cols; c0 += kColChunk) {
      const int64_t n = std::min(kColChunk, cols - c0);
      for (int64_t i = 0; i < rows; ++i)
        DecodeRowChunk(w, row0 + r + i, c0, n, tile + i * kColChunk);
      GemmRowsByTokens(tile, kColChunk, rows, x + c0, cols, n_tokens, n, y + r, y_stride, c0 > 0);
    }
  }
}

}  // namespace

bool CpuSupportsWeight(const WeightRef& w) {
  if (IsHostType(w.type)) return true;
  return w.quant != nullptr && w.quant->cpu != nullptr && w.quant->cpu->matmul != nullptr &&
         w.quant->cpu->get_rows != nullptr;
}

namespace {

bool HasMatvecQ8(const WeightRef& w) {
  return !IsHostType(w.type) && ORCD_HAS_FIELD(w.quant->cpu, orcd_quant_cpu_ops, matvec_q8) &&
         w.quant->cpu->matvec_q8 != nullptr;
}

bool HasMatmulQ8(const WeightRef& w) {
  return !IsHostType(w.type) && ORCD_HAS_FIELD(w.quant->cpu, orcd_quant_cpu_ops, matmul_q8) &&
         w.quant->cpu->matmul_q8 != nullptr;
}

// The plugin's kernel for several generated tokens (ABI 1.9), else its
// matmul_q8 (the same contract), else nullptr.
using MatmulQ8Fn = decltype(orcd_quant_cpu_ops::matmul_q8);
MatmulQ8Fn DecodeMatmulQ8(const WeightRef& w) {
  if (ORCD_HAS_FIELD(w.quant->cpu, orcd_quant_cpu_ops, matmul_q8_decode) &&
      w.quant->cpu->matmul_q8_decode != nullptr) {
    return w.quant->cpu->matmul_q8_decode;
  }
  return HasMatmulQ8(w) ? w.quant->cpu->matmul_q8 : nullptr;
}

// Generated tokens with 8-bit activations, several at once: matvec_q8 over
// tiles of rows small enough to stay in L2 while every token passes, so the
// weights come from memory once for the whole batch and each (row, token)
// keeps matvec_q8's bits (a row's dot does not depend on its neighbours).
void RowTiledMatvecQ8(const WeightRef& w, int64_t row0, int64_t n_rows, const float* x,
                      int64_t n_tokens, float* y, int64_t y_stride) {
  constexpr uint64_t kTileBytes = 192 * 1024;  // fits L2 beside x; x is quantized once per tile
  const int64_t tile = std::max<int64_t>(1, static_cast<int64_t>(kTileBytes / w.row_bytes));
  const int64_t cols = w.cols();
  for (int64_t r = 0; r < n_rows; r += tile) {
    const int64_t rows = std::min(tile, n_rows - r);
    for (int64_t t = 0; t < n_tokens; ++t)
      w.quant->cpu->matvec_q8(w.row(row0 + r), rows, cols, x + t * cols, y + t * y_stride + r);
  }
}

}  // namespace

void MatmulRows(const WeightRef& w, int64_t row0, int64_t n_rows, const float* x, int64_t n_tokens,
                float* y, int64_t y_stride, bool q8_activations, TokenKind kind) {
  if (n_rows <= 0 || n_tokens <= 0) return;
  if (kind == TokenKind::kGenerated) {
    if (q8_activations && HasMatvecQ8(w)) {
      // matmul_q8(_decode) gives each token matvec_q8's bits (the plugins'
      // tests pin it).
      if (n_tokens == 1) {
        w.quant->cpu->matvec_q8(w.row(row0), n_rows, w.cols(), x, y);
      } else if (MatmulQ8Fn decode = DecodeMatmulQ8(w)) {
        decode(w.row(row0), n_rows, w.cols(), x, n_tokens, y, y_stride);
      } else {
        RowTiledMatvecQ8(w, row0, n_rows, x, n_tokens, y, y_stride);
      }
      return;
    }
    if (IsHostType(w.type)) {
      HostMatmulRows(w, row0, n_rows, x, n_tokens, y, y_stride);
      return;
    }
    w.quant->cpu->matmul(w.row(row0), n_rows, w.cols(), x, n_tokens, y, y_stride);
    return;
  }
  // Prompt tokens, whatever their count (a prompt's chunking must not change
  // its bits): the plugin's tiled integer GEMM with 8-bit activations where
  // it offers one (each token gets matvec_q8's bits, so prompt and generated
  // tokens round x the same way; a plugin offers matmul_q8 only where it
  // beats the f32 GEMM: the K-quants, and Q5_0 / Q8_0 on AVX-512 VNNI), else
  // the tiled f32 GEMM on decoded weight chunks.
  if (q8_activations && HasMatmulQ8(w)) {
    w.quant->cpu->matmul_q8(w.row(row0), n_rows, w.cols(), x, n_tokens, y, y_stride);
    return;
  }
  const bool blocks_fit = IsHostType(w.type) || kColChunk % w.quant->block_elems == 0;
  if (blocks_fit) {
    TiledMatmulRows(w, row0, n_rows, x, n_tokens, y, y_stride);
    return;
  }
  w.quant->cpu->matmul(w.row(row0), n_rows, w.cols(), x, n_tokens, y, y_stride);
}

void GetRows(const WeightRef& w, const int32_t* ids, int64_t n_ids, float* out) {
  const int64_t cols = w.cols();
  if (!IsHostType(w.type)) {
    w.quant->cpu->get_rows(w.data, cols, ids, n_ids, out);
    return;
  }
  for (int64_t i = 0; i < n_ids; ++i) ConvertChunk(w.type, w.row(ids[i]), 0, cols, out + i * cols);
}

}  // namespace orcd::engine::cpu
