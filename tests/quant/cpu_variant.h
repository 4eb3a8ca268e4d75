// Test parameter: a quant type's CPU kernels and which variant to run.
#ifndef ORCD_TESTS_QUANT_CPU_VARIANT_H_
#define ORCD_TESTS_QUANT_CPU_VARIANT_H_

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "common/cpu_kernel_set.h"

namespace orcd::quant::test {

enum class Isa { kPortable, kAvx2 };

using TypeAndIsa = std::tuple<const CpuKernels*, Isa>;

inline std::vector<TypeAndIsa> all_types_and_isas() {
  std::vector<TypeAndIsa> out;
  for (const CpuKernels* k : all_cpu_kernels()) {
    out.emplace_back(k, Isa::kPortable);
    out.emplace_back(k, Isa::kAvx2);
  }
  return out;
}

inline std::string type_and_isa_name(const testing::TestParamInfo<TypeAndIsa>& info) {
  return std::string(std::get<0>(info.param)->name) +
         (std::get<1>(info.param) == Isa::kAvx2 ? "_avx2" : "_portable");
}

inline std::string type_name(const testing::TestParamInfo<const CpuKernels*>& info) {
  return info.param->name;
}

// The ops of the variant; the AVX2 one only on CPUs that have it (callers
// GTEST_SKIP when this returns nullptr).
inline const orcd_quant_cpu_ops* ops_for(const CpuKernels& k, Isa isa) {
  if (isa == Isa::kPortable) return &k.portable;
  return cpu_has_avx2_fma() ? &k.avx2 : nullptr;
}

}  // namespace orcd::quant::test

#endif  // ORCD_TESTS_QUANT_CPU_VARIANT_H_
