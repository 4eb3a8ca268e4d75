// The CUDA half of `orcd-bench quant`; without CUDA it reports why not.
#ifndef ORCD_BENCH_QUANT_BENCH_CUDA_H_
#define ORCD_BENCH_QUANT_BENCH_CUDA_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "orcd/plugin.h"

namespace orcd::bench {

struct CudaDevice {
  bool usable = false;
  std::string reason;    // why not, when !usable
  std::string name;      // cudaDeviceProp::name
  double copy_gbps = 0;  // device-to-device cudaMemcpy, bytes read + written per second / 1e9
};

// Picks device 0 and measures its copy bandwidth.
CudaDevice probe_cuda_device();

// Bytes of weight copies the CUDA matvec cycles through, several times an
// H100's or H200's 50 MB L2: each launch reads a copy the previous ones have
// evicted, so GB/s is memory's, not the cache's.
constexpr size_t kCudaColdBytes = size_t{256} << 20;

// Weight bytes per second / 1e9 of the type's CUDA matvec (q8: matvec_q8, the
// decode path) on `w` (rows x cols blocks, host memory), each launch on the
// next of enough device copies to fill kCudaColdBytes, timed with CUDA events
// for at least min_time seconds. NaN if the type has no such CUDA kernel or
// CUDA fails (the error goes to stderr).
double cuda_matvec_gbps(orcd_ggml_type type, const std::vector<uint8_t>& w, int64_t rows,
                        int64_t cols, bool q8, double min_time);

}  // namespace orcd::bench

#endif  // ORCD_BENCH_QUANT_BENCH_CUDA_H_
