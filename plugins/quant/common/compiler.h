// Portability macros shared by the CPU (.cc) and CUDA (.cu) quant sources.
#ifndef ORCD_QUANT_COMMON_COMPILER_H_
#define ORCD_QUANT_COMMON_COMPILER_H_

// Functions that decode blocks run on the host and, compiled by nvcc, on the device.
#if defined(__CUDACC__)
#define ORCD_QUANT_HD __host__ __device__ __forceinline__
#else
#define ORCD_QUANT_HD inline
#endif

// AVX2+FMA code is compiled per function (never with -mavx2 for the whole build)
// and only called after a run-time CPU check, so the binaries run on any x86-64.
// F16C (fp16 <-> f32 in one instruction) comes with it: every AVX2 CPU has it,
// and the check asks for it too.
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__CUDACC__)
#define ORCD_QUANT_HAVE_X86 1
#define ORCD_QUANT_AVX2_TARGET "avx2,fma,f16c"
#define ORCD_QUANT_AVX2 __attribute__((target(ORCD_QUANT_AVX2_TARGET)))
// The 8-bit decode kernels' third variant (AVX-512 with VNNI, 2019+ Intel
// servers, AMD Zen 4+): only called after cpu_has_avx512_vnni().
#define ORCD_QUANT_AVX512_VNNI_TARGET "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni"
#define ORCD_QUANT_AVX512_VNNI __attribute__((target(ORCD_QUANT_AVX512_VNNI_TARGET)))
#else
#define ORCD_QUANT_HAVE_X86 0
#define ORCD_QUANT_AVX2
#define ORCD_QUANT_AVX512_VNNI
#endif

#endif  // ORCD_QUANT_COMMON_COMPILER_H_
