// Read-only memory mapping of a whole file (RAII).
#ifndef ORCD_HOST_GGUF_MAPPED_FILE_H_
#define ORCD_HOST_GGUF_MAPPED_FILE_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>

namespace orcd {

class MappedFile {
 public:
  // Throws orcd::Error (kNotFound, kIo) naming the path and the OS error.
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  size_t size() const { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace orcd

#endif  // ORCD_HOST_GGUF_MAPPED_FILE_H_
