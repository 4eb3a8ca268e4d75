// The Mistral [TOOL_CALLS] parser: the JSON-array shape and the [ARGS] shape.
#include "host/chat/output/tool_calls_token_parser.h"

#include <gtest/gtest.h>

#include "tests/chat/output_parser_harness.h"

namespace orcd {
namespace {

const ParserFactory kToolCallsToken = [] { return std::make_unique<ToolCallsTokenParser>(); };

TEST(ToolCallsTokenParser, JsonArrayAsV03WritesIt) {
  const auto m = ParseEveryWay(
      kToolCallsToken,
      "[TOOL_CALLS] [{\"name\": \"get_current_weather\", \"arguments\": {\"location\": \"Paris, "
      "France\"}, \"id\": \"call12345\"}, {\"name\": \"b\", \"arguments\": {}}]");
  EXPECT_EQ(m.content, "");
  ASSERT_EQ(m.tool_calls.size(), 2u);
  EXPECT_EQ(m.tool_calls[0].name, "get_current_weather");
  EXPECT_EQ(m.tool_calls[0].arguments, "{\"location\": \"Paris, France\"}");
  EXPECT_EQ(m.tool_calls[1].name, "b");
}

TEST(ToolCallsTokenParser, ArgsShapeWithAndWithoutCallId) {
  const auto m = ParseEveryWay(kToolCallsToken,
                               "Checking.[TOOL_CALLS]get_current_weather[ARGS]{\"location\": "
                               "\"Paris\"}[TOOL_CALLS]other[CALL_ID]abc123XYZ[ARGS]{\"n\": [1]}");
  EXPECT_EQ(m.content, "Checking.");
  ASSERT_EQ(m.tool_calls.size(), 2u);
  EXPECT_EQ(m.tool_calls[0].name, "get_current_weather");
  EXPECT_EQ(m.tool_calls[0].arguments, "{\"location\": \"Paris\"}");
  EXPECT_EQ(m.tool_calls[1].name, "other");
  EXPECT_EQ(m.tool_calls[1].arguments, "{\"n\": [1]}");
}

TEST(ToolCallsTokenParser, MalformedIsContent) {
  for (const std::string& text :
       {std::string("[TOOL_CALLS] [oops]"), std::string("[TOOL_CALLS]not a name!"),
        std::string("[TOOL_CALLS] [{\"args\": 1}]"), std::string("[TOOL_CALLS]"),
        std::string("Plain [TOOL answer")}) {
    const auto m = ParseEveryWay(kToolCallsToken, text);
    EXPECT_TRUE(m.tool_calls.empty()) << text;
    EXPECT_EQ(m.content, text);
  }
}

}  // namespace
}  // namespace orcd
