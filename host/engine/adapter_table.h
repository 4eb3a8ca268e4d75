// Per-backend adapter tables: opcode -> the function that runs it. The
// executor is one generic loop over bound instructions; a backend is a table
// (CPU now; CUDA adds its own table, not a second engine), and a plugin-defined
// opcode becomes runnable by registering an adapter for it.
#ifndef ORCD_HOST_ENGINE_ADAPTER_TABLE_H_
#define ORCD_HOST_ENGINE_ADAPTER_TABLE_H_

#include <map>
#include <string>
#include <utility>

#include "host/engine/plan.h"
#include "orcd/plugin.h"

namespace orcd::engine {

struct BoundInstruction;
struct ExecContext;
struct WeightRef;

// Runs one instruction over the batch in `ctx`. Throws orcd::Error on
// conditions only known at run time (e.g. a token id out of range).
using AdapterFn = void (*)(const BoundInstruction& insn, ExecContext& ctx);

class AdapterTable {
 public:
  // `weight_kernels_exist(w)`: whether this backend has matmul / get_rows
  // kernels for w's type (host types, or a quant plugin with this backend's ops).
  using WeightSupport = bool (*)(const WeightRef& w);

  AdapterTable(orcd_backend backend, std::string name, WeightSupport weight_support)
      : backend_(backend), name_(std::move(name)), weight_support_(weight_support) {}

  void Register(Opcode opcode, AdapterFn fn) { adapters_[opcode] = fn; }
  AdapterFn Find(Opcode opcode) const {
    auto it = adapters_.find(opcode);
    return it == adapters_.end() ? nullptr : it->second;
  }
  bool SupportsWeight(const WeightRef& w) const { return weight_support_(w); }

  orcd_backend backend() const { return backend_; }
  const std::string& name() const { return name_; }

 private:
  orcd_backend backend_;
  std::string name_;
  WeightSupport weight_support_;
  std::map<Opcode, AdapterFn> adapters_;
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_ADAPTER_TABLE_H_
