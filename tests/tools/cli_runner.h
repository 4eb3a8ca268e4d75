// Runs one of the build's command-line tools and captures what it printed.
#ifndef ORCD_TESTS_TOOLS_CLI_RUNNER_H_
#define ORCD_TESTS_TOOLS_CLI_RUNNER_H_

#include <filesystem>
#include <string>
#include <vector>

#include "tests/unit/test_files.h"

namespace orcd::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs build/bin/<tool> with `args` (each shell-quoted).
CliResult RunTool(const std::string& tool, const std::vector<std::string>& args);

}  // namespace orcd::testing

#endif  // ORCD_TESTS_TOOLS_CLI_RUNNER_H_
