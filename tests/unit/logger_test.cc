// Structured logs: one JSON object per line, context fields on every line,
// level filtering (prompts only ever go out at debug).
#include "host/common/logger.h"

#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

namespace orcd {
namespace {

TEST(Logger, WritesOneJsonObjectPerLineWithContext) {
  std::vector<std::string> lines;
  Logger logger;
  logger.SetSink([&](const std::string& l) { lines.push_back(l); });
  logger.SetContext("worker_id", "w-1");
  logger.Log(LogLevel::kInfo, "model_load_start", "loading \"x\"\n", {{"path", "/m/a b.gguf"}});
  logger.Log(LogLevel::kDebug, "prompt", "secret prompt text");
  ASSERT_EQ(lines.size(), 1u) << "debug is filtered at the default info level";
  auto obj = Poco::JSON::Parser().parse(lines[0]).extract<Poco::JSON::Object::Ptr>();
  EXPECT_EQ(obj->getValue<std::string>("level"), "info");
  EXPECT_EQ(obj->getValue<std::string>("event"), "model_load_start");
  EXPECT_EQ(obj->getValue<std::string>("worker_id"), "w-1");
  EXPECT_EQ(obj->getValue<std::string>("path"), "/m/a b.gguf");
  EXPECT_EQ(obj->getValue<std::string>("msg"), "loading \"x\"\n");
  EXPECT_EQ(lines[0].find('\n'), std::string::npos);

  logger.SetLevel(LogLevel::kDebug);
  logger.Log(LogLevel::kDebug, "prompt", "now visible");
  EXPECT_EQ(lines.size(), 2u);
}

TEST(Logger, ParsesLevelNames) {
  LogLevel l = LogLevel::kInfo;
  EXPECT_TRUE(ParseLogLevel("warn", &l));
  EXPECT_EQ(l, LogLevel::kWarn);
  EXPECT_FALSE(ParseLogLevel("verbose", &l));
  EXPECT_EQ(JsonEscape(std::string("a\x01") + "\t"), "a\\u0001\\t");
}

}  // namespace
}  // namespace orcd
