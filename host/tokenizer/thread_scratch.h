// Thread-local scratch vectors keep their capacity between calls, so that
// encoding allocates nothing per piece. One huge input (a 1 MiB prompt is
// half a million pieces) must not leave each handler thread holding its
// peak for good: past kKeepScratchBytes a scratch vector is released.
#ifndef ORCD_HOST_TOKENIZER_THREAD_SCRATCH_H_
#define ORCD_HOST_TOKENIZER_THREAD_SCRATCH_H_

#include <cstddef>
#include <vector>

namespace orcd {

inline constexpr size_t kKeepScratchBytes = size_t{256} << 10;

template <class T>
void ReleaseIfLarge(std::vector<T>& scratch) {
  if (scratch.capacity() * sizeof(T) > kKeepScratchBytes) std::vector<T>().swap(scratch);
}

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_THREAD_SCRATCH_H_
