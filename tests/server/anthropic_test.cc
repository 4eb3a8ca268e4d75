// Anthropic's Messages API pieces: the request as the chat template's
// messages and tools (OpenAI's form), and the model's parsed output as
// content blocks, collected and as the API's stream events.
#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <string>
#include <utility>
#include <vector>

#include "host/chat/output/chat_output_format.h"
#include "host/chat/output/chat_output_parser.h"
#include "host/server/anthropic_output.h"
#include "host/server/anthropic_request.h"

namespace orcd {
namespace {

using jinja::Value;

RequestLimits Limits() {
  RequestLimits l;
  l.vocab_size = 1000;
  return l;
}

const std::string& Str(const Value& dict, const char* key) {
  return dict.AsDict().Find(key)->AsString();
}

TEST(AnthropicRequest, TurnsBecomeTemplateMessagesWithToolCallsAndResults) {
  const auto parsed = ParseAnthropicRequest(R"({
    "model":"m","max_tokens":64,"system":[{"type":"text","text":"Be brief."}],
    "stop_sequences":["END"],"temperature":0.2,"top_k":5,
    "tools":[{"name":"weather","description":"Forecast","input_schema":{"type":"object"}}],
    "messages":[
      {"role":"user","content":"Weather in Paris?"},
      {"role":"assistant","content":[{"type":"text","text":"Checking."},
        {"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Paris"}}]},
      {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1",
        "content":[{"type":"text","text":"sunny"}]},{"type":"text","text":"Thanks"}]}]})",
                                            Limits());
  ASSERT_TRUE(std::holds_alternative<AnthropicRequest>(parsed))
      << std::get<ValidationError>(parsed).message;
  const AnthropicRequest& r = std::get<AnthropicRequest>(parsed);
  EXPECT_EQ(r.max_tokens, 64);
  EXPECT_EQ(r.stop, std::vector<std::string>{"END"});
  EXPECT_DOUBLE_EQ(r.sampling.temperature, 0.2);
  EXPECT_EQ(r.sampling.top_k, 5);
  EXPECT_TRUE(r.tools_enabled);
  const auto& m = r.chat.messages.AsList();
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(Str(m[0], "role"), "system");
  EXPECT_EQ(Str(m[0], "content"), "Be brief.");
  EXPECT_EQ(Str(m[2], "role"), "assistant");
  EXPECT_EQ(Str(m[2], "content"), "Checking.");
  const Value& call = m[2].AsDict().Find("tool_calls")->AsList()[0];
  EXPECT_EQ(Str(call, "id"), "toolu_1");
  const Value& function = *call.AsDict().Find("function");
  EXPECT_EQ(Str(function, "name"), "weather");
  EXPECT_EQ(Str(*function.AsDict().Find("arguments"), "city"), "Paris");
  EXPECT_EQ(Str(m[3], "role"), "tool");
  EXPECT_EQ(Str(m[3], "tool_call_id"), "toolu_1");
  EXPECT_EQ(Str(m[3], "content"), "sunny");
  EXPECT_EQ(Str(m[4], "role"), "user");
  EXPECT_EQ(Str(m[4], "content"), "Thanks");
  const Value& tool = r.chat.tools.AsList()[0];
  EXPECT_EQ(Str(tool, "type"), "function");
  EXPECT_EQ(Str(*tool.AsDict().Find("function"), "description"), "Forecast");
}

TEST(AnthropicRequest, WhatCannotBeHonouredIsRefusedNamingTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"messages":[{"role":"user","content":"hi"}]})", "max_tokens"},
      {R"({"max_tokens":5,"messages":[]})", "messages"},
      {R"({"max_tokens":5,"messages":[{"role":"system","content":"x"}]})", "messages[0].role"},
      {R"({"max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]})",
       "messages[0].content[0].type"},
      {R"({"max_tokens":5,"temperature":1.5,"messages":[{"role":"user","content":"hi"}]})",
       "temperature"},
      {R"({"max_tokens":5,"thinking":{"type":"enabled","budget_tokens":1024},)"
       R"("messages":[{"role":"user","content":"hi"}]})",
       "thinking"},
      {R"({"max_tokens":5,"tool_choice":{"type":"any"},"messages":[{"role":"user","content":"hi"}]})",
       "tool_choice"},
      {R"({"max_tokens":5,"stop_sequences":["a","b","c","d","e"],)"
       R"("messages":[{"role":"user","content":"hi"}]})",
       "stop_sequences"},
  };
  for (const auto& [body, field] : cases) {
    const auto r = ParseAnthropicRequest(body, Limits());
    ASSERT_TRUE(std::holds_alternative<ValidationError>(r)) << body;
    EXPECT_EQ(std::get<ValidationError>(r).field, field) << body;
  }
  const auto counted = ParseAnthropicRequest(R"({"messages":[{"role":"user","content":"hi"}]})",
                                             Limits(), /*count_only=*/true);
  EXPECT_TRUE(std::holds_alternative<AnthropicRequest>(counted)) << "count_tokens: no max_tokens";
}

// A Qwen-style tool call in the model's text becomes a tool_use block, with
// its input an object; the stream opens, fills and closes each block in turn.
TEST(AnthropicOutput, ParsedToolCallsAreToolUseBlocksAndStreamAsEvents) {
  std::vector<std::pair<std::string, std::string>> events;
  AnthropicOutput streamed(
      [&](const std::string& name, const std::string& data) { events.emplace_back(name, data); });
  AnthropicOutput collected;
  for (AnthropicOutput* out : {&streamed, &collected}) {
    auto parser = MakeChatOutputParser(ChatOutputFormat::kToolCallTags, /*tools_enabled=*/true);
    parser->Push("Let me check.", *out);
    parser->Push("<tool_call>\n{\"name\": \"weather\", \"arguments\": {\"city\": \"Par", *out);
    parser->Push("is\"}}\n</tool_call>", *out);
    parser->Finish(*out);
    out->Finish();
  }
  EXPECT_TRUE(collected.has_tool_use());
  const Poco::JSON::Array::Ptr content =
      Poco::JSON::Parser().parse(collected.ContentJson()).extract<Poco::JSON::Array::Ptr>();
  ASSERT_EQ(content->size(), 2u) << collected.ContentJson();
  EXPECT_EQ(content->getObject(0)->getValue<std::string>("type"), "text");
  EXPECT_EQ(content->getObject(0)->getValue<std::string>("text"), "Let me check.");
  const Poco::JSON::Object::Ptr use = content->getObject(1);
  EXPECT_EQ(use->getValue<std::string>("type"), "tool_use");
  EXPECT_EQ(use->getValue<std::string>("name"), "weather");
  EXPECT_EQ(use->getValue<std::string>("id").rfind("toolu_", 0), 0u);
  EXPECT_EQ(use->getObject("input")->getValue<std::string>("city"), "Paris");

  std::vector<std::string> names;
  std::string partial_json;
  for (const auto& [name, data] : events) {
    if (names.empty() || names.back() != name || name != "content_block_delta")
      names.push_back(name);
    const Poco::JSON::Object::Ptr e =
        Poco::JSON::Parser().parse(data).extract<Poco::JSON::Object::Ptr>();
    EXPECT_EQ(e->getValue<std::string>("type"), name);
    if (name == "content_block_delta" && e->getObject("delta")->has("partial_json")) {
      EXPECT_EQ(e->getValue<int>("index"), 1);
      partial_json += e->getObject("delta")->getValue<std::string>("partial_json");
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"content_block_start", "content_block_delta",
                                             "content_block_stop", "content_block_start",
                                             "content_block_delta", "content_block_stop"}));
  EXPECT_EQ(Poco::JSON::Parser()
                .parse(partial_json)
                .extract<Poco::JSON::Object::Ptr>()
                ->getValue<std::string>("city"),
            "Paris");
}

}  // namespace
}  // namespace orcd
