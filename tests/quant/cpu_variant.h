// Test parameter: a quant type's CPU kernels and which variant to run.
#ifndef ORCD_TESTS_QUANT_CPU_VARIANT_H_
#define ORCD_TESTS_QUANT_CPU_VARIANT_H_

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "common/cpu_kernel_set.h"

namespace orcd::quant::test {

enum class Isa { kPortable, kAvx2, kAvx512Vnni };

using TypeAndIsa = std::tuple<const CpuKernels*, Isa>;

inline std::vector<TypeAndIsa> all_types_and_isas() {
  std::vector<TypeAndIsa> out;
  for (const CpuKernels* k : all_cpu_kernels()) {
    out.emplace_back(k, Isa::kPortable);
    out.emplace_back(k, Isa::kAvx2);
    out.emplace_back(k, Isa::kAvx512Vnni);
  }
  return out;
}

inline std::string isa_name(Isa isa) {
  switch (isa) {
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512Vnni:
      return "avx512vnni";
    case Isa::kPortable:
      break;
  }
  return "portable";
}

inline std::string type_and_isa_name(const testing::TestParamInfo<TypeAndIsa>& info) {
  return std::string(std::get<0>(info.param)->name) + "_" + isa_name(std::get<1>(info.param));
}

inline std::string type_name(const testing::TestParamInfo<const CpuKernels*>& info) {
  return info.param->name;
}

// The ops of the variant; the SIMD ones only on CPUs that have them (callers
// GTEST_SKIP with missing_isa_reason when this returns nullptr).
inline const orcd_quant_cpu_ops* ops_for(const CpuKernels& k, Isa isa) {
  switch (isa) {
    case Isa::kAvx2:
      return cpu_has_avx2_fma() ? &k.avx2 : nullptr;
    case Isa::kAvx512Vnni:
      return cpu_has_avx512_vnni() ? &k.avx512_vnni : nullptr;
    case Isa::kPortable:
      break;
  }
  return &k.portable;
}

inline const char* missing_isa_reason(Isa isa) {
  return isa == Isa::kAvx512Vnni
             ? "this CPU has no AVX-512 F/BW/VL/VNNI (or ORCD_QUANT_CPU_KERNELS caps it)"
             : "this CPU has no AVX2+FMA (or ORCD_QUANT_CPU_KERNELS caps it)";
}

}  // namespace orcd::quant::test

#endif  // ORCD_TESTS_QUANT_CPU_VARIANT_H_
