#include "common/cpu_kernel_set.h"

namespace orcd::quant {

bool cpu_has_avx2_fma() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return supported;
#else
  return false;
#endif
}

namespace {
struct ServedType {
  const char* plugin;
  const CpuKernels* kernels;
};
constexpr ServedType kServed[] = {
#define ORCD_QUANT_TYPE(plugin, T) {#plugin, &kCpuKernels_##T},
#include "common/type_list.def"
#undef ORCD_QUANT_TYPE
};
}  // namespace

std::span<const CpuKernels* const> all_cpu_kernels() {
  static const CpuKernels* const kAll[] = {
#define ORCD_QUANT_TYPE(plugin, T) &kCpuKernels_##T,
#include "common/type_list.def"
#undef ORCD_QUANT_TYPE
  };
  return kAll;
}

std::vector<const CpuKernels*> cpu_kernels_of_plugin(std::string_view plugin) {
  std::vector<const CpuKernels*> out;
  for (const ServedType& s : kServed) {
    if (plugin == s.plugin) out.push_back(s.kernels);
  }
  return out;
}

const CpuKernels* find_cpu_kernels(orcd_ggml_type type) {
  for (const CpuKernels* k : all_cpu_kernels()) {
    if (k->type == type) return k;
  }
  return nullptr;
}

}  // namespace orcd::quant
