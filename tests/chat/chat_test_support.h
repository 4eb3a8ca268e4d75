// Helpers the chat tests share: the chat fixtures' directory, reading a file
// whole, and the fixed date the fixtures were rendered with.
#ifndef ORCD_TESTS_CHAT_CHAT_TEST_SUPPORT_H_
#define ORCD_TESTS_CHAT_CHAT_TEST_SUPPORT_H_

#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "host/chat/jinja/jinja_template.h"

namespace orcd::testing {

inline std::filesystem::path ChatFixtures() {
  return std::filesystem::path(ORCD_FIXTURES_DIR) / "chat";
}

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// strftime_now's clock pinned to the date the fixtures were rendered on
// (2024-07-26, a Friday), so templates that stamp today's date compare.
inline jinja::RenderOptions FixtureDate() {
  jinja::RenderOptions o;
  o.now = [] {
    std::tm t{};
    t.tm_year = 124;
    t.tm_mon = 6;
    t.tm_mday = 26;
    t.tm_wday = 5;
    t.tm_yday = 207;
    return t;
  };
  return o;
}

}  // namespace orcd::testing

#endif  // ORCD_TESTS_CHAT_CHAT_TEST_SUPPORT_H_
