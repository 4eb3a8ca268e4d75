// The CUDA backend a test built into both the emulated-device suite and the
// GPU tests (ORCD_ADAPTER_TEST_ON_GPU) runs on: the emulated device in CI,
// the GPU in the GPU tests, where it skips without one.
#ifndef ORCD_TESTS_ENGINE_CUDA_ENGINE_UNDER_TEST_H_
#define ORCD_TESTS_ENGINE_CUDA_ENGINE_UNDER_TEST_H_

#include <memory>
#include <string>

#include "engine_test_support.h"
#include "host/engine/engine.h"
#if ORCD_ADAPTER_TEST_ON_GPU
#include "device_buffer.h"
#endif

namespace orcd::testing {

inline std::unique_ptr<engine::Engine> LoadCudaEngine(const std::string& model,
                                                      engine::EngineOptions options) {
#if ORCD_ADAPTER_TEST_ON_GPU
  options.device = "cuda";
  return LoadFixtureEngine(model, options);
#else
  return LoadEmulatedCudaEngine(model, 1ull << 30, options);
#endif
}

}  // namespace orcd::testing

// Skips without a GPU in the GPU tests; the emulated device is always there.
#if ORCD_ADAPTER_TEST_ON_GPU
#define ORCD_SKIP_WITHOUT_CUDA() ORCD_SKIP_WITHOUT_GPU()
#else
#define ORCD_SKIP_WITHOUT_CUDA() \
  do {                           \
  } while (0)
#endif

#endif  // ORCD_TESTS_ENGINE_CUDA_ENGINE_UNDER_TEST_H_
