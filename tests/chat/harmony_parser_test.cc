// gpt-oss harmony output: analysis -> reasoning, final -> content, a message
// to functions.NAME -> a tool call.
#include "host/chat/output/harmony_parser.h"

#include <gtest/gtest.h>

#include "tests/chat/output_parser_harness.h"

namespace orcd {
namespace {

const ParserFactory kWithTools = [] { return std::make_unique<HarmonyParser>(true); };
const ParserFactory kNoTools = [] { return std::make_unique<HarmonyParser>(false); };

TEST(HarmonyParser, AnalysisThenFinal) {
  // What follows the prompt's "<|start|>assistant"; <|return|> ended the
  // turn (an end-of-generation token, never part of the text).
  const auto m = ParseEveryWay(kWithTools,
                               "<|channel|>analysis<|message|>User greets. Reply.<|end|>"
                               "<|start|>assistant<|channel|>final<|message|>Hello!");
  EXPECT_EQ(m.reasoning, "User greets. Reply.");
  EXPECT_EQ(m.content, "Hello!");
  EXPECT_TRUE(m.tool_calls.empty());
}

TEST(HarmonyParser, ToolCallInEitherHeaderPlacement) {
  const auto m = ParseEveryWay(
      kWithTools,
      "<|channel|>analysis<|message|>Need weather.<|end|>"
      "<|start|>assistant to=functions.get_current_weather<|channel|>commentary json<|message|>"
      "{\"location\": \"Paris\"}");
  EXPECT_EQ(m.reasoning, "Need weather.");
  EXPECT_EQ(m.content, "");
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].name, "get_current_weather");
  EXPECT_EQ(m.tool_calls[0].arguments, "{\"location\": \"Paris\"}");

  const auto c = ParseEveryWay(kWithTools,
                               "<|channel|>commentary to=functions.lookup <|constrain|>json"
                               "<|message|>{\"q\": 1}");
  ASSERT_EQ(c.tool_calls.size(), 1u);
  EXPECT_EQ(c.tool_calls[0].name, "lookup");
  EXPECT_EQ(c.tool_calls[0].arguments, "{\"q\": 1}");
}

TEST(HarmonyParser, WithoutToolsACallIsContent) {
  const auto m = ParseEveryWay(
      kNoTools, "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}");
  EXPECT_TRUE(m.tool_calls.empty());
  EXPECT_EQ(m.content, "{}");
}

TEST(HarmonyParser, NotHarmonyIsContent) {
  for (const std::string& text : {std::string("Just text, no channels."), std::string("<|chan"),
                                  std::string("<|channel|>final and never a message")}) {
    const auto m = ParseEveryWay(kWithTools, text);
    EXPECT_TRUE(m.tool_calls.empty());
    EXPECT_EQ(m.reasoning, "");
    EXPECT_EQ(m.content, text) << "nothing lost";
  }
  // Text after a finished message that is not another message.
  const auto tail = ParseEveryWay(kWithTools, "<|channel|>final<|message|>Hi<|end|> trailing");
  EXPECT_EQ(tail.content, "Hitrailing");
}

}  // namespace
}  // namespace orcd
