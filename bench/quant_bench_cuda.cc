#include "quant_bench_cuda.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#if ORCD_BENCH_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "common/cuda_kernel_set.h"
#endif

namespace orcd::bench {

#if ORCD_BENCH_HAVE_CUDA
namespace {

class DeviceMemory {
 public:
  explicit DeviceMemory(size_t bytes) {
    if (cudaMalloc(&ptr_, bytes) != cudaSuccess) ptr_ = nullptr;
  }
  ~DeviceMemory() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

class Event {
 public:
  Event() { cudaEventCreate(&e_); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "orcd-bench: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

// Seconds per call of f(), timed with events over enough calls for min_time.
template <class F>
double time_on_device(F&& f, double min_time) {
  Event start, stop;
  if (!check(f(), "warm-up launch") || !check(cudaDeviceSynchronize(), "warm-up")) return NAN;
  int iters = 1;
  for (;;) {
    cudaEventRecord(start.get());
    for (int i = 0; i < iters; ++i) {
      if (!check(f(), "launch")) return NAN;
    }
    cudaEventRecord(stop.get());
    if (!check(cudaEventSynchronize(stop.get()), "timing")) return NAN;
    float ms = 0;
    cudaEventElapsedTime(&ms, start.get(), stop.get());
    const double seconds = ms * 1e-3;
    if (seconds >= min_time || iters >= (1 << 20)) return seconds / iters;
    iters = seconds > 0 ? static_cast<int>(iters * std::min(100.0, 1.2 * min_time / seconds)) + 1
                        : iters * 100;
  }
}

}  // namespace

CudaDevice probe_cuda_device() {
  CudaDevice d;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    d.reason = e != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(e)
                                : "no CUDA device";
    return d;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  d.name = prop.name;
  constexpr size_t kBytes = size_t{512} << 20;
  DeviceMemory src(kBytes), dst(kBytes);
  if (src.get() == nullptr || dst.get() == nullptr) {
    d.reason = "cannot allocate 1 GiB for the copy-bandwidth probe";
    return d;
  }
  cudaMemset(src.get(), 1, kBytes);
  const double s = time_on_device(
      [&] { return cudaMemcpy(dst.get(), src.get(), kBytes, cudaMemcpyDeviceToDevice); }, 0.3);
  d.copy_gbps = 2.0 * kBytes / s / 1e9;  // every byte read once and written once
  d.usable = std::isfinite(d.copy_gbps);
  if (!d.usable) d.reason = "copy-bandwidth probe failed";
  return d;
}

double cuda_matvec_gbps(orcd_ggml_type type, const std::vector<uint8_t>& w, int64_t rows,
                        int64_t cols, bool q8, double min_time) {
  const quant::CudaKernels* k = quant::find_cuda_kernels(type);
  if (k == nullptr || (q8 && k->matvec_q8 == nullptr)) return NAN;
  const size_t copies = std::max<size_t>(2, (kCudaColdBytes + w.size() - 1) / w.size());
  DeviceMemory d_w(copies * w.size()), d_x(cols * sizeof(float)), d_y(rows * sizeof(float));
  if (d_w.get() == nullptr || d_x.get() == nullptr || d_y.get() == nullptr) return NAN;
  auto* base = static_cast<uint8_t*>(d_w.get());
  for (size_t c = 0; c < copies; ++c) {
    if (!check(cudaMemcpy(base + c * w.size(), w.data(), w.size(), cudaMemcpyHostToDevice),
               "upload"))
      return NAN;
  }
  // Zero activations: the f32 FMAs and the dp4a work do not depend on values
  // (the q8 runs' scales are zero too; cols / 32 runs fit the f32 buffer).
  cudaMemset(d_x.get(), 0, cols * sizeof(float));
  const auto* x = static_cast<const float*>(d_x.get());
  const auto* xq = static_cast<const orcd_q8_x32*>(d_x.get());
  auto* y = static_cast<float*>(d_y.get());
  size_t next = 0;
  const double s = time_on_device(
      [&] {
        const uint8_t* copy = base + (next++ % copies) * w.size();
        return q8 ? k->matvec_q8(copy, rows, cols, xq, y, nullptr)
                  : k->matvec(copy, rows, cols, x, y, nullptr);
      },
      min_time);
  return static_cast<double>(w.size()) / s / 1e9;
}

#else  // built without CUDA

CudaDevice probe_cuda_device() {
  CudaDevice d;
  d.reason = "orcd-bench was built without CUDA";
  return d;
}

double cuda_matvec_gbps(orcd_ggml_type, const std::vector<uint8_t>&, int64_t, int64_t, bool,
                        double) {
  return NAN;
}

#endif

}  // namespace orcd::bench
