#include "tests/fuzz/fuzz_support.h"

#include <cstdio>
#include <cstdlib>

namespace orcd::fuzz {

std::filesystem::path FixturesDir() {
  if (const char* dir = std::getenv("ORCD_FIXTURES_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return ORCD_FIXTURES_DIR;
}

void Check(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

}  // namespace orcd::fuzz
