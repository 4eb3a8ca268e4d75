#include "host/engine/weight_table.h"

#include "host/gguf/ggml_type_traits.h"

namespace orcd::engine {

std::string WeightRef::ShapeString() const {
  std::string s;
  for (uint32_t d = 0; d < (n_dims == 0 ? 1 : n_dims); ++d)
    s += (d ? "x" : "") + std::to_string(ne[d]);
  return s + " " + GgmlTypeName(type);
}

WeightTable::WeightTable(const GgufFile& file,
                         const std::map<uint32_t, Claim<orcd_quant_type>>& quant) {
  weights_.reserve(file.tensors().size());
  for (const GgufTensorInfo& t : file.tensors()) {
    WeightRef w;
    w.name = t.name;
    w.type = t.type;
    w.n_dims = t.n_dims;
    w.ne = t.ne;
    w.data = t.data;
    w.n_bytes = t.n_bytes;
    const int64_t rows = t.n_rows();
    w.row_bytes = rows > 0 ? t.n_bytes / static_cast<uint64_t>(rows) : 0;
    if (auto it = quant.find(t.type); it != quant.end()) w.quant = it->second.entry;
    index_.emplace(w.name, weights_.size());
    weights_.push_back(std::move(w));
  }
}

const WeightRef* WeightTable::Find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &weights_[it->second];
}

}  // namespace orcd::engine
