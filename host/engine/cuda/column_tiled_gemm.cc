#include "host/engine/cuda/column_tiled_gemm.h"

#include <utility>

#include "host/common/status.h"
#include "host/engine/cuda/delegating_runtime.h"
#include "host/engine/cuda/device_buffer.h"

namespace orcd::engine::cuda {
namespace {

size_t ElementBytes(GemmType type) { return type == GemmType::kF32 ? 4 : 2; }

class ColumnTiledGemm final : public DelegatingRuntime {
 public:
  ColumnTiledGemm(std::shared_ptr<DeviceRuntime> inner, int64_t tile)
      : DelegatingRuntime(std::move(inner)), tile_(tile) {}

  void Gemm(bool trans_a, int64_t m, int64_t n, int64_t k, GemmType type, const void* a,
            int64_t lda, const void* b, int64_t ldb, float* c, int64_t ldc) override {
    const size_t column_bytes = static_cast<size_t>(ldb) * ElementBytes(type);
    const auto* b_bytes = static_cast<const char*>(b);
    int64_t col = 0;
    for (; col + tile_ <= n; col += tile_) {
      DelegatingRuntime::Gemm(trans_a, m, tile_, k, type, a, lda, b_bytes + col * column_bytes, ldb,
                              c + col * ldc, ldc);
    }
    const int64_t rest = n - col;
    if (rest == 0) return;
    // The last columns, padded to a tile: what the padding holds (zeros, or
    // an earlier call's columns) reaches only padded outputs, never copied.
    const size_t k_bytes = static_cast<size_t>(k) * ElementBytes(type);
    const size_t m_bytes = static_cast<size_t>(m) * sizeof(float);
    Reserve(k_bytes, m_bytes);
    CopyOnDevice2D(padded_b_.get(), k_bytes, b_bytes + col * column_bytes, column_bytes, k_bytes,
                   static_cast<size_t>(rest));
    DelegatingRuntime::Gemm(trans_a, m, tile_, k, type, a, lda, padded_b_.get(), k,
                            padded_c_.get<float>(), m);
    CopyOnDevice2D(c + col * ldc, static_cast<size_t>(ldc) * sizeof(float), padded_c_.get(),
                   m_bytes, m_bytes, static_cast<size_t>(rest));
  }

 private:
  void Reserve(size_t k_bytes, size_t m_bytes) {
    const uint64_t b_bytes = static_cast<uint64_t>(k_bytes) * tile_;
    const uint64_t c_bytes = static_cast<uint64_t>(m_bytes) * tile_;
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
  DeviceBuffer padded_b_;  // k x tile, column-major
  DeviceBuffer padded_c_;  // m x tile, column-major, f32
};

}  // namespace

std::shared_ptr<DeviceRuntime> WithColumnTiledGemm(std::shared_ptr<DeviceRuntime> inner,
                                                   int64_t tile) {
  if (tile <= 0) throw Error(ErrorCode::kInvalidArgument, "GEMM column tile must be positive");
  return std::make_shared<ColumnTiledGemm>(std::move(inner), tile);
}

}  // namespace orcd::engine::cuda
