// The Llama 3.1 / 3.2 tool-call parser: JSON replies, <|python_tag|>, plain text.
#include "host/chat/output/json_tool_call_parser.h"

#include <gtest/gtest.h>

#include "tests/chat/output_parser_harness.h"

namespace orcd {
namespace {

const ParserFactory kJsonCall = [] { return std::make_unique<JsonToolCallParser>(); };

TEST(JsonToolCallParser, JsonReplyWithParameters) {
  const auto m = ParseEveryWay(kJsonCall,
                               "{\"name\": \"get_current_weather\", \"parameters\": {\"location\": "
                               "\"Paris, France\", \"unit\": \"celsius\"}}");
  EXPECT_EQ(m.content, "");
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].name, "get_current_weather");
  EXPECT_EQ(m.tool_calls[0].arguments, "{\"location\": \"Paris, France\", \"unit\": \"celsius\"}");
}

TEST(JsonToolCallParser, PythonTagAndSeveralCalls) {
  const auto m = ParseEveryWay(
      kJsonCall,
      "<|python_tag|>{\"name\": \"a\", \"parameters\": {\"n\": 1}}; {\"name\": \"b\", "
      "\"arguments\": {}}");
  ASSERT_EQ(m.tool_calls.size(), 2u);
  EXPECT_EQ(m.tool_calls[0].name, "a");
  EXPECT_EQ(m.tool_calls[0].arguments, "{\"n\": 1}");
  EXPECT_EQ(m.tool_calls[1].name, "b");
  EXPECT_EQ(m.content, "");
}

TEST(JsonToolCallParser, TextReplyIsContent) {
  const auto m =
      ParseEveryWay(kJsonCall, "  It is sunny in Paris. {\"name\": \"x\"} is not a call.");
  EXPECT_TRUE(m.tool_calls.empty());
  EXPECT_EQ(m.content, "  It is sunny in Paris. {\"name\": \"x\"} is not a call.");
}

TEST(JsonToolCallParser, MalformedJsonIsContent) {
  for (const std::string& text : {std::string("{\"answer\": 42}"), std::string("{not json"),
                                  std::string("{\"name\": \"f\""), std::string("<|python_ta")}) {
    const auto m = ParseEveryWay(kJsonCall, text);
    EXPECT_TRUE(m.tool_calls.empty()) << text;
    EXPECT_EQ(m.content, text);
  }
  // After the tag, code for the built-in interpreter: content without the tag.
  const auto code = ParseEveryWay(kJsonCall, "<|python_tag|>print(1)");
  EXPECT_TRUE(code.tool_calls.empty());
  EXPECT_EQ(code.content, "<|python_tag|>print(1)");
}

}  // namespace
}  // namespace orcd
