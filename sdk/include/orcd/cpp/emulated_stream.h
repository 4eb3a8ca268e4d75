// What an emulated cudaStream_t points at (ORCD_CUDA_EMULATED builds; a null
// stream runs every launch at once). While `capturing`, cuda_launch.h records
// launches with their arguments instead of running them, as CUDA stream
// capture records a graph; the host's emulated device replays them. A plain
// struct in its own header so that plugin modules, which launch on the host's
// stream, record into the same list.
#ifndef ORCD_CPP_EMULATED_STREAM_H_
#define ORCD_CPP_EMULATED_STREAM_H_

#include <functional>
#include <vector>

namespace orcd::cuda_emulator {

struct EmulatedStream {
  bool capturing = false;
  std::vector<std::function<void()>> captured;
};

}  // namespace orcd::cuda_emulator

#endif  // ORCD_CPP_EMULATED_STREAM_H_
