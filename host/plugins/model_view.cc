#include "host/plugins/model_view.h"

namespace orcd {
namespace {

int GetU64(const orcd_model_view* m, const char* key, uint64_t* out) {
  auto v = m->file.GetU64(key);
  if (!v) return 0;
  *out = *v;
  return 1;
}

int GetI64(const orcd_model_view* m, const char* key, int64_t* out) {
  auto v = m->file.GetI64(key);
  if (!v) return 0;
  *out = *v;
  return 1;
}

int GetF64(const orcd_model_view* m, const char* key, double* out) {
  auto v = m->file.GetF64(key);
  if (!v) return 0;
  *out = *v;
  return 1;
}

int GetBool(const orcd_model_view* m, const char* key, int* out) {
  auto v = m->file.GetBool(key);
  if (!v) return 0;
  *out = *v ? 1 : 0;
  return 1;
}

int GetString(const orcd_model_view* m, const char* key, const char** out) {
  auto v = m->file.GetString(key);
  if (!v) return 0;
  auto it = m->strings.find(key);
  if (it == m->strings.end()) it = m->strings.emplace(key, std::string(*v)).first;
  *out = it->second.c_str();
  return 1;
}

uint64_t ArrayLength(const orcd_model_view* m, const char* key) {
  const GgufValue* v = m->file.Find(key);
  return (v && v->type == GgufType::kArray) ? v->items.size() : 0;
}

void FillDesc(const GgufTensorInfo& t, orcd_tensor_desc* out) {
  out->struct_size = sizeof(orcd_tensor_desc);
  out->name = t.name.c_str();
  out->type = static_cast<orcd_ggml_type>(t.type);
  out->n_dims = t.n_dims;
  for (uint32_t d = 0; d < kGgufMaxDims; ++d) out->ne[d] = t.ne[d];
  out->n_bytes = t.n_bytes;
}

int FindTensor(const orcd_model_view* m, const char* name, orcd_tensor_desc* out) {
  const GgufTensorInfo* t = m->file.FindTensor(name);
  if (!t) return 0;
  FillDesc(*t, out);
  return 1;
}

uint64_t TensorCount(const orcd_model_view* m) { return m->file.tensors().size(); }

int TensorAt(const orcd_model_view* m, uint64_t index, orcd_tensor_desc* out) {
  if (index >= m->file.tensors().size()) return 0;
  FillDesc(m->file.tensors()[index], out);
  return 1;
}

const orcd_model_view_ops kOps = {
    sizeof(orcd_model_view_ops),
    GetU64,
    GetI64,
    GetF64,
    GetBool,
    GetString,
    ArrayLength,
    FindTensor,
    TensorCount,
    TensorAt,
};

}  // namespace

const orcd_model_view_ops* ModelViewOps() { return &kOps; }

}  // namespace orcd
