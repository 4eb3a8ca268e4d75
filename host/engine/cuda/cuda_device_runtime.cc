// The real device: the CUDA runtime on one GPU and one stream (RAII for the
// stream when this runtime created it). Built only with CUDA.
//
// CUDA's current device is per thread, and the worker reaches the device from
// several (the loading thread, the scheduler's, /health's residency check):
// every entry point makes this runtime's GPU current first, so a worker on
// GPU 1 never allocates or launches on device 0. Kernels and plugin ops are
// launched after a copy or memset of the same run on the same thread.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "host/common/status.h"
#include "host/engine/cuda/device_runtime.h"

namespace orcd::engine::cuda {
namespace {

std::string Describe(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

void CheckCuda(cudaError_t e, const std::string& what) {
  if (e == cudaSuccess) return;
  throw Error(ErrorCode::kDevice, "CUDA " + what + ": " + Describe(e));
}

void CheckCublas(cublasStatus_t s, const std::string& what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  throw Error(
      s == CUBLAS_STATUS_ALLOC_FAILED ? ErrorCode::kOutOfMemory : ErrorCode::kDevice,
      "cuBLAS " + what + ": " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")");
}

cudaDataType_t CudaType(GemmType t) {
  return t == GemmType::kF16 ? CUDA_R_16F : t == GemmType::kBF16 ? CUDA_R_16BF : CUDA_R_32F;
}

// An instantiated CUDA graph (RAII for the graph and its executable).
class CudaGraph : public DeviceRuntime::Graph {
 public:
  CudaGraph(cudaGraph_t graph, cudaStream_t stream, int gpu)
      : graph_(graph), stream_(stream), gpu_(gpu) {
    const cudaError_t e = cudaGraphInstantiate(&exec_, graph_, 0);
    if (e != cudaSuccess) {
      cudaGraphDestroy(graph_);
      CheckCuda(e, "cudaGraphInstantiate");
    }
  }
  ~CudaGraph() override {
    cudaGraphExecDestroy(exec_);
    cudaGraphDestroy(graph_);
  }
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  void Replay() override {
    CheckCuda(cudaSetDevice(gpu_), "cudaSetDevice");
    CheckCuda(cudaGraphLaunch(exec_, stream_), "cudaGraphLaunch");
  }
  size_t kernels() const override {
    size_t n = 0;
    return cudaGraphGetNodes(graph_, nullptr, &n) == cudaSuccess ? n : 0;
  }

 private:
  cudaGraph_t graph_;
  cudaGraphExec_t exec_ = nullptr;
  cudaStream_t stream_;
  int gpu_;
};

class CudaRuntime : public DeviceRuntime {
 public:
  CudaRuntime(int gpu, void* stream) : gpu_(gpu) {
    int count = 0;
    CheckCuda(cudaGetDeviceCount(&count), "no usable device");
    if (gpu < 0 || gpu >= count) {
      throw Error(ErrorCode::kDevice, "CUDA gpu " + std::to_string(gpu) + " does not exist (" +
                                          std::to_string(count) + " present)");
    }
    CheckCuda(cudaSetDevice(gpu), "cudaSetDevice");
    cudaDeviceProp prop{};
    CheckCuda(cudaGetDeviceProperties(&prop, gpu), "cudaGetDeviceProperties");
    name_ = std::string(prop.name) + " (sm_" + std::to_string(prop.major * 10 + prop.minor) + ")";
    if (stream != nullptr) {
      stream_ = static_cast<cudaStream_t>(stream);
    } else {
      CheckCuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
      owns_stream_ = true;
    }
    try {
      CheckCublas(cublasCreate(&cublas_), "cublasCreate");
      CheckCublas(cublasSetStream(cublas_, stream_), "cublasSetStream");
    } catch (...) {
      if (cublas_) cublasDestroy(cublas_);
      if (owns_stream_) cudaStreamDestroy(stream_);
      throw;
    }
  }
  ~CudaRuntime() override {
    cudaSetDevice(gpu_);
    for (cudaEvent_t e : marks_) {
      if (e != nullptr) cudaEventDestroy(e);
    }
    cublasDestroy(cublas_);
    if (owns_stream_) cudaStreamDestroy(stream_);
  }
  CudaRuntime(const CudaRuntime&) = delete;
  CudaRuntime& operator=(const CudaRuntime&) = delete;

  std::string name() const override { return name_; }
  bool emulated() const override { return false; }
  void* stream() const override { return stream_; }
  const OpKernels& kernels() const override { return DeviceOpKernels(); }

  DeviceMemoryInfo MemoryInfo() override {
    size_t free_bytes = 0, total = 0;
    MakeCurrent();
    CheckCuda(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    return {free_bytes, total};
  }
  void* Allocate(size_t bytes) override {
    void* p = nullptr;
    MakeCurrent();
    const cudaError_t e = cudaMalloc(&p, bytes == 0 ? 256 : bytes);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // not sticky: clear it
      throw Error(ErrorCode::kOutOfMemory,
                  "cudaMalloc of " + std::to_string(bytes) + " bytes: out of device memory");
    }
    CheckCuda(e, "cudaMalloc");
    return p;
  }
  void Free(void* p) override {
    if (p == nullptr) return;
    cudaSetDevice(gpu_);  // no throw: frees run in destructors
    cudaFree(p);
  }
  void* AllocatePinned(size_t bytes) override {
    void* p = nullptr;
    MakeCurrent();
    CheckCuda(cudaMallocHost(&p, bytes), "cudaMallocHost");
    return p;
  }
  void FreePinned(void* p) override {
    if (p) cudaFreeHost(p);
  }
  void CopyToDevice(void* dst, const void* src, size_t bytes) override {
    MakeCurrent();
    CheckCuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_), "copy to device");
  }
  void CopyToHost(void* dst, const void* src, size_t bytes) override {
    MakeCurrent();
    CheckCuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "copy to host");
    Synchronize();
  }
  void CopyOnDevice(void* dst, const void* src, size_t bytes) override {
    MakeCurrent();
    CheckCuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_),
              "copy on device");
  }
  void CopyOnDevice2D(void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                      size_t row_bytes, size_t rows) override {
    MakeCurrent();
    CheckCuda(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, row_bytes, rows,
                                cudaMemcpyDeviceToDevice, stream_),
              "2D copy on device");
  }
  void Memset(void* dst, int value, size_t bytes) override {
    MakeCurrent();
    CheckCuda(cudaMemsetAsync(dst, value, bytes, stream_), "memset");
  }
  void Synchronize() override {
    MakeCurrent();
    CheckCuda(cudaStreamSynchronize(stream_), "stream");
  }
  void Pace() override {
    MakeCurrent();
    for (cudaEvent_t& e : marks_) {
      if (e == nullptr) CheckCuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "event");
    }
    const int now = next_mark_;
    next_mark_ ^= 1;
    CheckCuda(cudaEventRecord(marks_[now], stream_), "cudaEventRecord");
    // The other mark: recorded by the previous call, or never (returns at once).
    CheckCuda(cudaEventSynchronize(marks_[now ^ 1]), "stream");
  }
  void Gemm(bool trans_a, int64_t m, int64_t n, int64_t k, GemmType type, const void* a,
            int64_t lda, const void* b, int64_t ldb, float* c, int64_t ldc) override {
    const float alpha = 1.0f, beta = 0.0f;
    MakeCurrent();
    CheckCublas(
        cublasGemmEx(cublas_, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(m),
                     static_cast<int>(n), static_cast<int>(k), &alpha, a, CudaType(type),
                     static_cast<int>(lda), b, CudaType(type), static_cast<int>(ldb), &beta, c,
                     CUDA_R_32F, static_cast<int>(ldc), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
  }
  // Thread-local mode: another thread's unrelated CUDA calls (e.g. /health's
  // residency check) do not invalidate the capture.
  void BeginCapture() override {
    MakeCurrent();
    CheckCuda(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal),
              "cudaStreamBeginCapture");
  }
  std::unique_ptr<Graph> EndCapture() override {
    cudaGraph_t graph = nullptr;
    CheckCuda(cudaStreamEndCapture(stream_, &graph), "cudaStreamEndCapture");
    return std::make_unique<CudaGraph>(graph, stream_, gpu_);
  }
  void AbortCapture() override {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream_, &status) == cudaSuccess &&
        status != cudaStreamCaptureStatusNone) {
      cudaGraph_t graph = nullptr;
      cudaStreamEndCapture(stream_, &graph);
      if (graph) cudaGraphDestroy(graph);
    }
    cudaGetLastError();  // a failed capture's error is not the next call's
  }
  bool IsDeviceMemory(const void* p) override {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return a.type == cudaMemoryTypeDevice && a.device == gpu_;
  }

 private:
  void MakeCurrent() const { CheckCuda(cudaSetDevice(gpu_), "cudaSetDevice"); }

  int gpu_;
  std::string name_;
  cudaStream_t stream_ = nullptr;
  bool owns_stream_ = false;
  cublasHandle_t cublas_ = nullptr;
  cudaEvent_t marks_[2] = {};  // Pace's, alternating
  int next_mark_ = 0;
};

}  // namespace

std::shared_ptr<DeviceRuntime> CreateCudaRuntime(int gpu_index, void* stream) {
  return std::make_shared<CudaRuntime>(gpu_index, stream);
}

}  // namespace orcd::engine::cuda
