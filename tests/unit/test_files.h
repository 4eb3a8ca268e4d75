// Helpers shared by the unit tests: temporary directories, fixture paths and
// a small valid GGUF to corrupt.
#ifndef ORCD_TESTS_UNIT_TEST_FILES_H_
#define ORCD_TESTS_UNIT_TEST_FILES_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "host/gguf/gguf_writer.h"

namespace orcd::testing {

// A fresh directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

std::filesystem::path FixturePath(const std::string& relative);
std::vector<uint8_t> ReadBytes(const std::filesystem::path& path);
void WriteBytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);

struct CommandResult {
  int exit_code = -1;  // -1 when the command did not exit normally
  std::string output;  // stdout and stderr together
};
// Runs a shell command line and waits for it.
CommandResult RunCommand(const std::string& command);

// A small, valid model-shaped file: metadata of every scalar type, a string
// array, a nested array, and two tensors (F32 and Q8_0).
GgufWriter SmallModelWriter();

}  // namespace orcd::testing

#endif  // ORCD_TESTS_UNIT_TEST_FILES_H_
