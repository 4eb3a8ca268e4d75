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
  orcd_quant_cpu_ops avx2;      // AVX2+FMA+F16C: call only when cpu_has_avx2_fma()
  // avx2 with AVX-512 VNNI matvec_q8 / matmul_q8 where the type has them
  // (the K-quants' bit-identical to AVX2's; Q5_0 and Q8_0 sum each block
  // exactly first, q8_row_lanes.h): call only when cpu_has_avx512_vnni().
  orcd_quant_cpu_ops avx512_vnni;
};

// Run-time checks (cpuid and the OS's saved register state), computed once.
// Each variant's check implies the previous one's. ORCD_QUANT_CPU_KERNELS=
// portable|avx2 in the environment caps them (A/B runs, reproducing a
// smaller CPU's path); it never raises them.
bool cpu_has_avx2_fma();
bool cpu_has_avx512_vnni();

// The variant to use on this CPU.
inline const orcd_quant_cpu_ops& best_cpu_ops(const CpuKernels& k) {
  if (cpu_has_avx512_vnni()) return k.avx512_vnni;
  return cpu_has_avx2_fma() ? k.avx2 : k.portable;
}

// Which variant best_cpu_ops picks: "avx512-vnni", "avx2" or "portable".
const char* best_cpu_variant_name();

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
