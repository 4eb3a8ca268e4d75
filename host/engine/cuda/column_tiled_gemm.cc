#include "host/engine/cuda/column_tiled_gemm.h"

#include <algorithm>
#include <utility>

#include "host/common/status.h"
#include "host/engine/cuda/delegating_runtime.h"
#include "host/engine/cuda/device_buffer.h"

namespace orcd::engine::cuda {
namespace {

size_t ElementBytes(GemmType type) { return type == GemmType::kF32 ? 4 : 2; }

class ColumnTiledGemm final : public DelegatingRuntime {
 public:
  ColumnTiledGemm(std::shared_ptr<DeviceRuntime> inner, int64_t tile, uint64_t max_padded_bytes)
      : DelegatingRuntime(std::move(inner)),
        tile_(tile),
        rows_(std::max<int64_t>(1, static_cast<int64_t>(max_padded_bytes / sizeof(float)) / tile)) {
  }

  void Gemm(bool trans_a, int64_t m, int64_t n, int64_t k, GemmType type, const void* a,
            int64_t lda, const void* b, int64_t ldb, float* c, int64_t ldc) override {
    const size_t elem = ElementBytes(type);
    const size_t column_bytes = static_cast<size_t>(ldb) * elem;
    const auto* b_bytes = static_cast<const char*>(b);
    const int64_t whole = n - n % tile_;  // columns in whole tiles
    const int64_t rest = n - whole;
    const size_t k_bytes = static_cast<size_t>(k) * elem;
    if (rest > 0) {
      // The last columns, padded to a tile: what the padding holds (zeros,
      // or an earlier call's columns) reaches only padded outputs, never
      // copied out.
      Reserve(k_bytes * tile_, static_cast<uint64_t>(std::min(m, rows_)) * tile_ * sizeof(float));
      CopyOnDevice2D(padded_b_.get(), k_bytes, b_bytes + whole * column_bytes, column_bytes,
                     k_bytes, static_cast<size_t>(rest));
    }
    // Rows in blocks of at most rows_, the same blocks whatever n: the
    // padded output stays bounded (a LOGITS GEMM has a vocabulary of rows).
    for (int64_t r0 = 0; r0 < m; r0 += rows_) {
      const int64_t mb = std::min(rows_, m - r0);
      const auto* a_rows = static_cast<const char*>(a) + (trans_a ? r0 * lda : r0) * elem;
      for (int64_t col = 0; col < whole; col += tile_) {
        DelegatingRuntime::Gemm(trans_a, mb, tile_, k, type, a_rows, lda,
                                b_bytes + col * column_bytes, ldb, c + r0 + col * ldc, ldc);
      }
      if (rest == 0) continue;
      DelegatingRuntime::Gemm(trans_a, mb, tile_, k, type, a_rows, lda, padded_b_.get(), k,
                              padded_c_.get<float>(), mb);
      CopyOnDevice2D(c + r0 + whole * ldc, static_cast<size_t>(ldc) * sizeof(float),
                     padded_c_.get(), mb * sizeof(float), mb * sizeof(float),
                     static_cast<size_t>(rest));
    }
  }

 private:
  void Reserve(uint64_t b_bytes, uint64_t c_bytes) {
    if (b_bytes <= padded_b_.bytes() && c_bytes <= padded_c_.bytes()) return;
    Synchronize();  // the old scratch may still be read by queued work
    if (b_bytes > padded_b_.bytes()) {
      padded_b_ = DeviceBuffer();
      padded_b_ = DeviceBuffer(*this, b_bytes);
      Memset(padded_b_.get(), 0, b_bytes);
    }
    if (c_bytes > padded_c_.bytes()) {
      padded_c_ = DeviceBuffer();
      padded_c_ = DeviceBuffer(*this, c_bytes);
    }
  }

  const int64_t tile_;
  const int64_t rows_;     // rows per GEMM call
  DeviceBuffer padded_b_;  // k x tile, column-major
  DeviceBuffer padded_c_;  // rows_ x tile at most, column-major, f32
};

}  // namespace

std::shared_ptr<DeviceRuntime> WithColumnTiledGemm(std::shared_ptr<DeviceRuntime> inner,
                                                   int64_t tile, uint64_t max_padded_bytes) {
  if (tile <= 0) throw Error(ErrorCode::kInvalidArgument, "GEMM column tile must be positive");
  return std::make_shared<ColumnTiledGemm>(std::move(inner), tile, max_padded_bytes);
}

}  // namespace orcd::engine::cuda
