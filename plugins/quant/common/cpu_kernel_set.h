// The CPU kernels of one quant type, as the plugins and the tests see them.
#ifndef ORCD_QUANT_COMMON_CPU_KERNEL_SET_H_
#define ORCD_QUANT_COMMON_CPU_KERNEL_SET_H_

#include <stdint.h>

#include <span>
#include <string_view>
#include <vector>

#include "orcd/plugin.h"

namespace orcd::quant {

struct CpuKernels {
  orcd_ggml_type type;
  const char* name;  // ggml's name, "Q4_K"
  uint32_t block_elems;
  uint32_t block_bytes;
  orcd_quant_cpu_ops portable;  // plain C++ (SSE2 at most), any x86-64 or other CPU
  orcd_quant_cpu_ops avx2;      // AVX2+FMA: call only when cpu_has_avx2_fma()
};

// Run-time check (cpuid), computed once.
bool cpu_has_avx2_fma();

// The variant to use on this CPU.
inline const orcd_quant_cpu_ops& best_cpu_ops(const CpuKernels& k) {
  return cpu_has_avx2_fma() ? k.avx2 : k.portable;
}

// Every served type, in type_list.def order.
std::span<const CpuKernels* const> all_cpu_kernels();
const CpuKernels* find_cpu_kernels(orcd_ggml_type type);  // nullptr if not served
// The types one plugin ("q4", "mxfp4") serves, in type_list.def order.
std::vector<const CpuKernels*> cpu_kernels_of_plugin(std::string_view plugin);

#define ORCD_QUANT_TYPE(plugin, T) extern const CpuKernels kCpuKernels_##T;
#include "common/type_list.def"
#undef ORCD_QUANT_TYPE

}  // namespace orcd::quant

#endif  // ORCD_QUANT_COMMON_CPU_KERNEL_SET_H_
