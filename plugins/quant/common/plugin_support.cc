#include "common/plugin_support.h"

#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

#include "common/cpu_kernel_set.h"

namespace orcd::quant {
namespace {

std::atomic<const orcd_host_services*> g_host{nullptr};

// The smallest services table this plugin can use: up to error_free.
constexpr size_t kMinHostSize = offsetof(orcd_host_services, error_free) + sizeof(void*);

// Descriptor storage; lives until the module is unloaded.
struct PluginTables {
  std::vector<orcd_quant_cpu_ops> cpu;
  std::vector<orcd_quant_type> types;
  orcd_quant_plugin quant{};
  orcd_plugin_descriptor descriptor{};
  std::string summary;  // for the log
};

void log(const orcd_host_services* host, orcd_log_level level, const char* plugin,
         const std::string& message) {
  if (host != nullptr && host->struct_size >= offsetof(orcd_host_services, log) + sizeof(void*) &&
      host->log != nullptr) {
    host->log(level, plugin, message.c_str());
  }
}

bool build_tables(PluginTables& t, const QuantPluginSpec& spec) {
  const std::vector<const CpuKernels*> kernels = cpu_kernels_of_plugin(spec.name);
  if (kernels.empty()) return false;
  t.cpu.reserve(kernels.size());  // no reallocation: types[] points into cpu[]
  t.types.reserve(kernels.size());
  t.summary = std::string("serving");
  for (const CpuKernels* k : kernels) {
    t.cpu.push_back(best_cpu_ops(*k));
    const orcd_quant_cuda_ops* cuda = spec.cuda_ops != nullptr ? spec.cuda_ops(k->type) : nullptr;
    t.types.push_back(orcd_quant_type{sizeof(orcd_quant_type), k->type, k->name, k->block_elems,
                                      k->block_bytes, &t.cpu.back(), cuda});
    t.summary += std::string(" ") + k->name;
  }
  t.summary += std::string("; CPU kernels: ") + best_cpu_variant_name();
  t.summary += spec.cuda_ops != nullptr ? "; CUDA kernels: yes" : "; CUDA kernels: not built";
  t.quant = orcd_quant_plugin{sizeof(orcd_quant_plugin), static_cast<uint32_t>(t.types.size()),
                              t.types.data()};
  t.descriptor = orcd_plugin_descriptor{sizeof(orcd_plugin_descriptor),
                                        ORCD_ABI_MAJOR,
                                        ORCD_ABI_MINOR,
                                        spec.name,
                                        spec.version,
                                        ORCD_PLUGIN_QUANT,
                                        nullptr,
                                        &t.quant};
  return true;
}

std::string check_sizes(uint32_t block_elems, int64_t cols) {
  if (cols <= 0 || cols % block_elems != 0) {
    return "cols " + std::to_string(cols) + " is not a positive multiple of the block size " +
           std::to_string(block_elems);
  }
  return "";
}

}  // namespace

const orcd_host_services* module_host() { return g_host.load(std::memory_order_acquire); }

void set_module_host(const orcd_host_services* host) {
  g_host.store(host, std::memory_order_release);
}

orcd_error* make_error(orcd_status code, const std::string& message) {
  const orcd_host_services* host = module_host();
  if (host == nullptr || host->error_new == nullptr) return nullptr;
  return host->error_new(code, message.c_str());
}

const orcd_plugin_descriptor* build_quant_plugin(const orcd_host_services* host,
                                                 const QuantPluginSpec& spec) {
  if (host == nullptr) return nullptr;
  if (host->abi_major != ORCD_ABI_MAJOR || host->struct_size < kMinHostSize ||
      host->error_new == nullptr) {
    log(host, ORCD_LOG_ERROR, spec.name,
        "host services of ABI " + std::to_string(host->abi_major) + "." +
            std::to_string(host->abi_minor) + " (struct_size " + std::to_string(host->struct_size) +
            ") cannot serve this plugin, built for ABI " + std::to_string(ORCD_ABI_MAJOR) + "." +
            std::to_string(ORCD_ABI_MINOR));
    return nullptr;
  }
  set_module_host(host);
  static PluginTables tables;
  static bool built = false;
  static std::once_flag once;
  std::call_once(once, [&] { built = build_tables(tables, spec); });
  if (!built) {
    log(host, ORCD_LOG_ERROR, spec.name, "no quant type is assigned to this plugin");
    return nullptr;
  }
  log(host, ORCD_LOG_DEBUG, spec.name, tables.summary);
  return &tables.descriptor;
}

std::string check_matmul_args(uint32_t block_elems, const void* w, int64_t rows, int64_t cols,
                              const float* x, int64_t n_tokens, const float* y, int64_t y_stride) {
  if (std::string e = check_sizes(block_elems, cols); !e.empty()) return e;
  if (rows < 0 || n_tokens < 0) return "negative rows or n_tokens";
  if (n_tokens > 1 && y_stride < rows) {
    return "y_stride " + std::to_string(y_stride) + " is smaller than rows " + std::to_string(rows);
  }
  if (rows > 0 && n_tokens > 0 && (w == nullptr || x == nullptr || y == nullptr)) {
    return "null weight, activation or output pointer";
  }
  return "";
}

std::string check_get_rows_args(uint32_t block_elems, const void* w, int64_t cols,
                                const int32_t* ids, int64_t n_ids, const void* out) {
  if (std::string e = check_sizes(block_elems, cols); !e.empty()) return e;
  if (n_ids < 0) return "negative n_ids";
  if (n_ids > 0 && (w == nullptr || ids == nullptr || out == nullptr)) {
    return "null weight, ids or output pointer";
  }
  return "";
}

}  // namespace orcd::quant
