// Random tensor contents for orcd-synth, in the tensor's ggml type.
//
// Small tensors are drawn value by value and quantized with the quant
// kernels' reference quantizer (ggml's *_ref). Large quantized tensors
// (> kExactElements) are tiled from a pool of blocks quantized the same way,
// picked at random: real-size shapes (billions of weights) are written in
// seconds instead of the minutes the K-quant search would take, and every
// block is still a valid, typical block of that type.
#ifndef ORCD_TOOLS_SYNTH_TENSOR_FILL_H_
#define ORCD_TOOLS_SYNTH_TENSOR_FILL_H_

#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "tools/synth/synth_shapes.h"

namespace orcd::synth {

inline constexpr int64_t kExactElements = int64_t{1} << 20;

class TensorFiller {
 public:
  explicit TensorFiller(uint64_t seed) : rng_(seed) {}

  // The bytes of `spec` in its type. Throws orcd::Error(kUnsupported) for a
  // type with no quantizer here.
  std::vector<uint8_t> Generate(const TensorSpec& spec);

 private:
  struct Pool {
    int64_t block_elems = 0;
    int64_t block_bytes = 0;
    std::vector<uint8_t> blocks;  // kPoolBlocks blocks back to back
  };
  std::vector<float> Draw(int64_t n, Fill fill);
  std::vector<uint8_t> Encode(uint32_t type, const std::vector<float>& values, int64_t row);
  const Pool& PoolFor(uint32_t type);

  std::mt19937_64 rng_;
  std::map<uint32_t, Pool> pools_;
};

}  // namespace orcd::synth

#endif  // ORCD_TOOLS_SYNTH_TENSOR_FILL_H_
