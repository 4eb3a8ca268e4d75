// The model's tensors as the engine sees them: GGUF shape and bytes, plus the
// quant plugin type that serves them (none for the host's F32/F16/BF16).
#ifndef ORCD_HOST_ENGINE_WEIGHT_TABLE_H_
#define ORCD_HOST_ENGINE_WEIGHT_TABLE_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "host/gguf/gguf_file.h"
#include "host/plugins/plugin_registry.h"

namespace orcd::engine {

struct WeightRef {
  std::string name;
  uint32_t type = 0;  // ggml type id
  uint32_t n_dims = 0;
  std::array<int64_t, kGgufMaxDims> ne{1, 1, 1, 1};
  const uint8_t* data = nullptr;
  uint64_t n_bytes = 0;
  uint64_t row_bytes = 0;
  const orcd_quant_type* quant = nullptr;  // nullptr: served by the host
  const uint8_t* device_data = nullptr;    // the device copy (CUDA backend), or null

  int64_t cols() const { return ne[0]; }
  int64_t rows() const { return ne[1] * ne[2] * ne[3]; }
  int64_t elements() const { return cols() * rows(); }
  const uint8_t* row(int64_t r) const { return data + static_cast<uint64_t>(r) * row_bytes; }
  std::string ShapeString() const;
};

class WeightTable {
 public:
  // `quant` maps every non-host type of `file` to the plugin type serving it
  // (ModelRoute::quant). `file` must outlive the table.
  WeightTable(const GgufFile& file, const std::map<uint32_t, Claim<orcd_quant_type>>& quant);

  const WeightRef* Find(std::string_view name) const;
  std::vector<WeightRef>& weights() { return weights_; }
  const std::vector<WeightRef>& weights() const { return weights_; }

 private:
  std::vector<WeightRef> weights_;
  std::map<std::string, size_t, std::less<>> index_;
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_WEIGHT_TABLE_H_
