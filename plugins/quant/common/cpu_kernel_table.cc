#include "common/cpu_kernel_set.h"

#include <stdlib.h>

#include <cstring>

namespace orcd::quant {
namespace {

enum class Variant { kPortable, kAvx2, kAvx512Vnni };

// The best variant this CPU runs, capped by ORCD_QUANT_CPU_KERNELS.
Variant detect_variant() {
  Variant v = Variant::kPortable;
#if defined(__x86_64__) || defined(__i386__)
  // libgcc's checks include the OS's XSAVE state: no AVX-512 under a kernel
  // (or hypervisor) that does not save the zmm registers.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("f16c")) {
    v = Variant::kAvx2;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")) {
      v = Variant::kAvx512Vnni;
    }
  }
#endif
  const char* cap = getenv("ORCD_QUANT_CPU_KERNELS");
  if (cap != nullptr) {
    if (std::strcmp(cap, "portable") == 0) v = Variant::kPortable;
    if (std::strcmp(cap, "avx2") == 0 && v > Variant::kAvx2) v = Variant::kAvx2;
  }
  return v;
}

Variant cpu_variant() {
  static const Variant v = detect_variant();
  return v;
}

}  // namespace

bool cpu_has_avx2_fma() { return cpu_variant() >= Variant::kAvx2; }

bool cpu_has_avx512_vnni() { return cpu_variant() >= Variant::kAvx512Vnni; }

const char* best_cpu_variant_name() {
  switch (cpu_variant()) {
    case Variant::kAvx512Vnni:
      return "avx512-vnni";
    case Variant::kAvx2:
      return "avx2";
    case Variant::kPortable:
      break;
  }
  return "portable";
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
