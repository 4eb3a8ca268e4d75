// The Hermes / Qwen2.5 tool-call parser: complete, streamed and malformed output.
#include "host/chat/output/hermes_tool_parser.h"

#include <gtest/gtest.h>

#include "tests/chat/output_parser_harness.h"

namespace orcd {
namespace {

const ParserFactory kToolCallTags = [] { return std::make_unique<HermesToolParser>(); };

TEST(HermesToolParser, OneCallAsQwenWritesIt) {
  const auto m = ParseEveryWay(
      kToolCallTags,
      "<tool_call>\n{\"name\": \"get_current_weather\", \"arguments\": {\"location\": \"Paris, "
      "France\", \"unit\": \"celsius\"}}\n</tool_call>");
  EXPECT_EQ(m.content, "");
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].name, "get_current_weather");
  EXPECT_EQ(m.tool_calls[0].arguments, "{\"location\": \"Paris, France\", \"unit\": \"celsius\"}");
}

TEST(HermesToolParser, ContentBeforeAndTwoCalls) {
  const auto m = ParseEveryWay(kToolCallTags,
                               "Let me check. <tool_call>{\"name\": \"a\", \"arguments\": {}}"
                               "</tool_call>\n<tool_call>{\"name\": \"b\", \"arguments\": "
                               "{\"x\": [1, \"}\"]}}</tool_call>");
  EXPECT_EQ(m.content, "Let me check. ");
  ASSERT_EQ(m.tool_calls.size(), 2u);
  EXPECT_EQ(m.tool_calls[0].name, "a");
  EXPECT_EQ(m.tool_calls[0].arguments, "{}");
  EXPECT_EQ(m.tool_calls[1].name, "b");
  EXPECT_EQ(m.tool_calls[1].arguments, "{\"x\": [1, \"}\"]}") << "a brace inside a string";
}

TEST(HermesToolParser, OtherKeyOrderAndStringArgumentsAreParsedWhole) {
  const auto m = ParseEveryWay(
      kToolCallTags,
      "<tool_call>{\"arguments\": {\"q\": \"\\u00e9t\\u00e9\"}, \"name\": \"search\"}</tool_call>"
      "<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"k\\\": 1}\"}</tool_call>");
  ASSERT_EQ(m.tool_calls.size(), 2u);
  EXPECT_EQ(m.tool_calls[0].name, "search");
  EXPECT_NE(m.tool_calls[0].arguments.find("\"q\""), std::string::npos);
  EXPECT_EQ(m.tool_calls[1].name, "f");
  EXPECT_EQ(m.tool_calls[1].arguments, "{\"k\": 1}") << "a JSON string holds the arguments";
}

TEST(HermesToolParser, PlainTextIsContent) {
  const auto m = ParseEveryWay(kToolCallTags, "No tools needed: 2 < 3 and <tool is not a tag.");
  EXPECT_EQ(m.content, "No tools needed: 2 < 3 and <tool is not a tag.");
  EXPECT_TRUE(m.tool_calls.empty());
}

TEST(HermesToolParser, MalformedCallsBecomeContent) {
  for (const std::string& text : {
           std::string("<tool_call>not json</tool_call> after"),
           std::string("<tool_call>{\"function\": \"f\"}</tool_call>"),
           std::string("<tool_call>{\"name\": 5, \"arguments\": {}}</tool_call>"),
           std::string("<tool_call>{\"name\": \"f\", \"argu"),  // cut before the call started
           std::string("<tool_"),
       }) {
    const auto m = ParseEveryWay(kToolCallTags, text);
    EXPECT_TRUE(m.tool_calls.empty()) << text;
    EXPECT_EQ(m.content, text) << "nothing lost, nothing invented";
  }
}

TEST(HermesToolParser, CallCutMidArgumentsKeepsWhatCame) {
  // max_tokens ends the turn inside the arguments: the call stays, its
  // arguments as far as the model got (finish_reason "length" says so).
  const auto m =
      ParseEveryWay(kToolCallTags, "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"x");
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].arguments, "{\"a\": \"x");
}

}  // namespace
}  // namespace orcd
