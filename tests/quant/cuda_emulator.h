// The quant kernels of common/cuda_device_kernels.cuh (and their launchers),
// compiled for the host and run by the SDK's CUDA emulator
// (orcd/cpp/cuda_emulator.h: a fiber per CUDA thread, real barriers for
// __syncthreads and the shuffles).
#ifndef ORCD_TESTS_QUANT_CUDA_EMULATOR_H_
#define ORCD_TESTS_QUANT_CUDA_EMULATOR_H_

#define ORCD_CUDA_EMULATED 1
#include "orcd/cpp/cuda_launch.h"

namespace orcd::quant::test::emulator {
using ::orcd::cuda_emulator::launch;
}  // namespace orcd::quant::test::emulator

#include "common/cuda_device_kernels.cuh"
#include "common/cuda_kernels.cuh"  // the launchers, for tests of their bookkeeping

#endif  // ORCD_TESTS_QUANT_CUDA_EMULATOR_H_
