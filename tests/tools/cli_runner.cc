#include "cli_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace orcd::testing {
namespace {

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

CliResult RunTool(const std::string& tool, const std::vector<std::string>& args) {
  TempDir io;
  std::string cmd = Quote(std::string(ORCD_BIN_DIR) + "/" + tool);
  for (const std::string& a : args) cmd += " " + Quote(a);
  cmd += " >" + Quote((io.path() / "out").string()) + " 2>" + Quote((io.path() / "err").string());
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadAll(io.path() / "out");
  r.err = ReadAll(io.path() / "err");
  return r;
}

}  // namespace orcd::testing
