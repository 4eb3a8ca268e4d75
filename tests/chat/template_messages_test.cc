// OpenAI-shaped messages (arguments as a JSON string, content null beside
// tool_calls) rendered through the fixture templates: after
// PrepareTemplateMessages each renders exactly what jinja2 renders for the
// transformers-shaped conversation (fixtures/chat expected/), so a tool
// conversation sent by an OpenAI client reaches the model as the model's
// authors intended. Tolerance: none (byte-exact).
#include "host/chat/template_messages.h"
#include "chat_test_support.h"

#include <gtest/gtest.h>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "host/chat/jinja/json_value.h"
#include "host/chat/output/chat_output_format.h"

namespace orcd {
namespace {

using testing::ChatFixtures;
using testing::FixtureDate;
using testing::ReadFile;

namespace fs = std::filesystem;

struct Fixture {
  jinja::JinjaTemplate chat_template;
  ChatRenderInput tokens;  // bos/eos as cases.json gives them
};

jinja::Value CasesJson() { return jinja::ParseJsonValue(ReadFile(ChatFixtures() / "cases.json")); }

Fixture Load(const std::string& name) {
  const jinja::Value cases = CasesJson();
  const jinja::Dict& meta = cases.AsDict().Find("templates")->AsDict().Find(name)->AsDict();
  Fixture f{jinja::JinjaTemplate::Parse(ReadFile(ChatFixtures() / meta.Find("file")->AsString())),
            {}};
  if (meta.Find("bos_token")->is_string()) f.tokens.bos_token = meta.Find("bos_token")->AsString();
  if (meta.Find("eos_token")->is_string()) f.tokens.eos_token = meta.Find("eos_token")->AsString();
  return f;
}

ChatRenderInput Case(const std::string& case_name) {
  const jinja::Value cases = CasesJson();
  for (const jinja::Value& c : cases.AsDict().Find("cases")->AsList()) {
    if (c.AsDict().Find("name")->AsString() == case_name) return ChatRenderInputFromCase(c);
  }
  ADD_FAILURE() << "no case " << case_name;
  return {};
}

TEST(TemplateMessages, ProbeFindsWhichArgumentShapeATemplateTakes) {
  for (const char* name : {"qwen2.5-7b-instruct", "llama-3.1-8b-instruct", "gpt-oss-120b",
                           "mistral-7b-instruct-v0.3", "qwen3-1.7b"}) {
    const Fixture f = Load(name);
    EXPECT_TRUE(ProbeTemplateMessageOptions(f.chat_template, f.tokens).arguments_as_objects)
        << name;
  }
  // DeepSeek-R1's template concatenates the arguments (an object raises
  // there) and renders calls only beside content null.
  const Fixture deepseek = Load("deepseek-r1-distill-qwen-32b");
  const TemplateMessageOptions o =
      ProbeTemplateMessageOptions(deepseek.chat_template, deepseek.tokens);
  EXPECT_FALSE(o.arguments_as_objects);
  EXPECT_FALSE(o.drop_null_content);
  const Fixture oss = Load("gpt-oss-120b");
  EXPECT_TRUE(ProbeTemplateMessageOptions(oss.chat_template, oss.tokens).drop_null_content);
}

TEST(TemplateMessages, OpenAiWireMessagesRenderAsTheTransformersShape) {
  // tools_call_string_args is the OpenAI wire shape (content null, arguments
  // a JSON string); tools_call is the shape transformers documents.
  const ChatRenderInput wire = Case("tools_call_string_args");
  for (const auto& [name, expected_case] : std::vector<std::pair<std::string, std::string>>{
           {"qwen2.5-7b-instruct", "tools_call"},
           {"llama-3.1-8b-instruct", "tools_call"},
           {"gpt-oss-120b", "tools_call"},  // content null would raise there
           {"mistral-7b-instruct-v0.3", "tools_call"},
           {"mistral-small-3.2-24b-instruct-2506", "tools_call"},
           {"deepseek-r1-distill-qwen-32b", "tools_call_string_args"}}) {
    const Fixture f = Load(name);
    ChatRenderInput input = wire;
    input.bos_token = f.tokens.bos_token;
    input.eos_token = f.tokens.eos_token;
    input.messages = PrepareTemplateMessages(
        wire.messages, ProbeTemplateMessageOptions(f.chat_template, f.tokens));
    const std::string expected =
        ReadFile(ChatFixtures() / "expected" / (name + "." + expected_case + ".txt"));
    EXPECT_EQ(f.chat_template.Render(ChatVariables(input), FixtureDate()), expected) << name;
  }
}

TEST(TemplateMessages, ReasoningContentIsGivenAsThinking) {
  const jinja::Value messages = jinja::ParseJsonValue(
      R"([{"role": "assistant", "content": "Hi", "reasoning_content": "greet back"}])");
  const jinja::Value prepared = PrepareTemplateMessages(messages, {});
  const jinja::Value* thinking = prepared.AsList()[0].AsDict().Find("thinking");
  ASSERT_NE(thinking, nullptr);
  EXPECT_EQ(thinking->AsString(), "greet back");
}

TEST(ChatOutputFormat, RecognisedFromEachFixtureTemplate) {
  const std::vector<std::pair<std::string, ChatOutputFormat>> expected = {
      {"qwen2.5-7b-instruct", ChatOutputFormat::kToolCallTags},
      {"qwen3-1.7b", ChatOutputFormat::kToolCallTags},
      {"llama-3.1-8b-instruct", ChatOutputFormat::kJsonCall},
      {"llama-3.2-3b-instruct", ChatOutputFormat::kJsonCall},
      {"mistral-7b-instruct-v0.3", ChatOutputFormat::kToolCallsToken},
      {"mistral-nemo-instruct-2407", ChatOutputFormat::kToolCallsToken},
      {"mistral-small-3.2-24b-instruct-2506", ChatOutputFormat::kToolCallsToken},
      {"gpt-oss-120b", ChatOutputFormat::kHarmony},
      {"phi-3.5-mini-instruct", ChatOutputFormat::kPlain},
      {"gemma-3-1b-it", ChatOutputFormat::kPlain},
  };
  const jinja::Value cases = CasesJson();
  for (const auto& [name, format] : expected) {
    const std::string file =
        cases.AsDict().Find("templates")->AsDict().Find(name)->AsDict().Find("file")->AsString();
    EXPECT_EQ(ChatOutputFormatName(DetectChatOutputFormat(ReadFile(ChatFixtures() / file))),
              ChatOutputFormatName(format))
        << name;
  }
}

}  // namespace
}  // namespace orcd
