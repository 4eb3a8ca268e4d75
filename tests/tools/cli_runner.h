// Runs one of the build's command-line tools and captures what it printed.
#ifndef ORCD_TESTS_TOOLS_CLI_RUNNER_H_
#define ORCD_TESTS_TOOLS_CLI_RUNNER_H_

#include <filesystem>
#include <string>
#include <vector>

namespace orcd::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs build/bin/<tool> with `args` (each shell-quoted).
CliResult RunTool(const std::string& tool, const std::vector<std::string>& args);

// A fresh directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace orcd::testing

#endif  // ORCD_TESTS_TOOLS_CLI_RUNNER_H_
