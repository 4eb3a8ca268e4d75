#include "host/gguf/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "host/common/status.h"

namespace orcd {
namespace {

// Closes the descriptor on every path out of the constructor.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& path) {
  // Refused before open(): opening a FIFO blocks until a writer appears. The
  // open is non-blocking too, in case the path is swapped in between; fstat
  // below checks what was actually opened.
  struct stat before {};
  if (::stat(path.c_str(), &before) == 0 && !S_ISREG(before.st_mode)) {
    throw Error(ErrorCode::kIo, path.string() + " is not a regular file");
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    throw Error(err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                "cannot open " + path.string() + ": " + std::strerror(err));
  }
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw Error(ErrorCode::kIo, "cannot stat " + path.string() + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    throw Error(ErrorCode::kIo, path.string() + " is not a regular file");
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ == 0) return;  // mmap of 0 bytes is invalid; an empty span is fine
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) {
    throw Error(ErrorCode::kIo, "cannot mmap " + path.string() + ": " + std::strerror(errno));
  }
  data_ = static_cast<const uint8_t*>(p);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace orcd
