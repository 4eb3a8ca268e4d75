// GEMMs whose every column has one arithmetic whatever their number.
//
// cuBLAS picks its kernel (tile shape, split-K) from the GEMM's shape, so a
// prompt token's outputs may depend on how many prompt rows share its step:
// a prefix-cache hit, a chunk shrunk by decode rows beside it or several short
// prompts in one step would then change a sequence's bits (DESIGN: batch
// invariance). This runtime hands the device's GEMM only calls of `tile`
// columns: full tiles in place, the rest padded to a tile in scratch of its
// own and copied out (rows in blocks that depend on m alone). Every column
// then takes the kernel cuBLAS picks for one shape, as batch-invariant GEMMs
// elsewhere fix one configuration for every batch size. The cost: the weight
// is read once per tile, and a short call computes a whole tile.
#ifndef ORCD_HOST_ENGINE_CUDA_COLUMN_TILED_GEMM_H_
#define ORCD_HOST_ENGINE_CUDA_COLUMN_TILED_GEMM_H_

#include <cstdint>
#include <memory>

#include "host/engine/cuda/device_runtime.h"

namespace orcd::engine::cuda {

// `inner` with its Gemm over column tiles of `tile` (> 0), and over blocks of
// rows whose padded output fits `max_padded_bytes` (the same blocks whatever
// the number of columns). The padding's scratch is allocated on the first
// call that needs it and grows to the largest call's k x tile values and
// padded output, kept until the runtime goes.
constexpr uint64_t kMaxPaddedGemmBytes = uint64_t{32} << 20;
std::shared_ptr<DeviceRuntime> WithColumnTiledGemm(std::shared_ptr<DeviceRuntime> inner,
                                                   int64_t tile,
                                                   uint64_t max_padded_bytes = kMaxPaddedGemmBytes);

}  // namespace orcd::engine::cuda

#endif  // ORCD_HOST_ENGINE_CUDA_COLUMN_TILED_GEMM_H_
