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
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__CUDACC__)
#define ORCD_QUANT_HAVE_X86 1
#define ORCD_QUANT_AVX2 __attribute__((target("avx2,fma")))
#else
#define ORCD_QUANT_HAVE_X86 0
#define ORCD_QUANT_AVX2
#endif

#endif  // ORCD_QUANT_COMMON_COMPILER_H_
