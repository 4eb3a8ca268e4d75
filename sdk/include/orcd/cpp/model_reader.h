// Header-only C++ helper for architecture plugins: typed access to the model
// view (orcd_model_view_ops) with "<arch>." keys, and CompileError, the
// exception a plugin throws inside compile() and converts to an orcd_error at
// the boundary (see plan_writer.h: CatchCompileErrors). Nothing C++ crosses
// the ABI.
#ifndef ORCD_CPP_MODEL_READER_H_
#define ORCD_CPP_MODEL_READER_H_

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "orcd/plugin.h"

namespace orcd::sdk {

class CompileError : public std::runtime_error {
 public:
  CompileError(orcd_status code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  orcd_status code() const { return code_; }

 private:
  orcd_status code_;
};

class ModelReader {
 public:
  ModelReader(const orcd_model_view* model, const orcd_model_view_ops* ops)
      : model_(model), ops_(ops) {
    arch_ = String("general.architecture").value_or("");
  }

  const std::string& architecture() const { return arch_; }
  // "<arch>.<key>"
  std::string ArchKey(const std::string& key) const { return arch_ + "." + key; }

  std::optional<uint64_t> U64(const std::string& key) const {
    uint64_t v = 0;
    return ops_->get_u64(model_, key.c_str(), &v) ? std::optional<uint64_t>(v) : std::nullopt;
  }
  std::optional<double> F64(const std::string& key) const {
    double v = 0;
    return ops_->get_f64(model_, key.c_str(), &v) ? std::optional<double>(v) : std::nullopt;
  }
  std::optional<bool> Bool(const std::string& key) const {
    int v = 0;
    return ops_->get_bool(model_, key.c_str(), &v) ? std::optional<bool>(v != 0) : std::nullopt;
  }
  std::optional<std::string> String(const std::string& key) const {
    const char* v = nullptr;
    return ops_->get_string(model_, key.c_str(), &v) && v ? std::optional<std::string>(v)
                                                          : std::nullopt;
  }

  // Required "<arch>.<key>" values: CompileError(MODEL_INVALID) naming the key.
  uint64_t RequireArchU64(const std::string& key) const {
    if (auto v = U64(ArchKey(key))) return *v;
    throw CompileError(ORCD_ERR_MODEL_INVALID, "missing metadata key " + ArchKey(key));
  }
  double RequireArchF64(const std::string& key) const {
    if (auto v = F64(ArchKey(key))) return *v;
    throw CompileError(ORCD_ERR_MODEL_INVALID, "missing metadata key " + ArchKey(key));
  }
  // Required / defaulted "<arch>.<key>" counts that must be in 1..UINT32_MAX.
  uint32_t RequireArchU32(const std::string& key) const {
    return CheckU32(RequireArchU64(key), key);
  }
  uint32_t ArchU32Or(const std::string& key, uint32_t fallback) const {
    return CheckU32(ArchU64Or(key, fallback), key);
  }
  uint64_t ArchU64Or(const std::string& key, uint64_t fallback) const {
    return U64(ArchKey(key)).value_or(fallback);
  }
  double ArchF64Or(const std::string& key, double fallback) const {
    return F64(ArchKey(key)).value_or(fallback);
  }

  bool HasTensor(const std::string& name) const {
    orcd_tensor_desc d{};
    d.struct_size = sizeof d;
    return ops_->find_tensor(model_, name.c_str(), &d) != 0;
  }
  orcd_tensor_desc RequireTensor(const std::string& name) const {
    orcd_tensor_desc d{};
    d.struct_size = sizeof d;
    if (!ops_->find_tensor(model_, name.c_str(), &d)) {
      throw CompileError(ORCD_ERR_MODEL_INVALID, "missing tensor " + name);
    }
    return d;
  }

 private:
  uint32_t CheckU32(uint64_t v, const std::string& key) const {
    if (v == 0 || v > UINT32_MAX) {
      throw CompileError(ORCD_ERR_MODEL_INVALID,
                         ArchKey(key) + " is out of range: " + std::to_string(v));
    }
    return static_cast<uint32_t>(v);
  }

  const orcd_model_view* model_;
  const orcd_model_view_ops* ops_;
  std::string arch_;
};

}  // namespace orcd::sdk

#endif  // ORCD_CPP_MODEL_READER_H_
