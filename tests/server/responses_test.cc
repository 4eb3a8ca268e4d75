// OpenAI's Responses API pieces: input items as the chat template's messages
// and tools (the chat form every template reads), the refusals of what a
// stateless worker cannot honour, and the model's parsed output as output
// items, collected and as the API's stream events in order.
#include <gtest/gtest.h>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <string>
#include <utility>
#include <vector>

#include "host/chat/jinja/json_dump.h"
#include "host/chat/output/chat_output_format.h"
#include "host/chat/output/chat_output_parser.h"
#include "host/server/responses_output.h"
#include "host/server/responses_request.h"

namespace orcd {
namespace {

RequestLimits Limits() {
  RequestLimits l;
  l.vocab_size = 1000;
  return l;
}

ResponsesRequest Parse(const std::string& body) {
  auto parsed = ParseResponsesRequest(body, Limits());
  if (auto* e = std::get_if<ValidationError>(&parsed)) {
    ADD_FAILURE() << e->message;
    return {};
  }
  return std::move(std::get<ResponsesRequest>(parsed));
}

std::string Dump(const jinja::Value& v) { return jinja::JsonDump(v, {}); }

TEST(ResponsesRequest, StringInputIsOneUserTurnAfterTheInstructions) {
  const ResponsesRequest r =
      Parse(R"({"model":"m","instructions":"Be brief.","input":"Hi","max_output_tokens":7,)"
            R"("temperature":0.5,"top_p":0.9,"reasoning":{"effort":"low","summary":"auto"}})");
  EXPECT_EQ(Dump(r.chat.messages),
            R"([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}])");
  EXPECT_EQ(r.max_output_tokens, 7);
  EXPECT_DOUBLE_EQ(r.sampling.temperature, 0.5);
  EXPECT_DOUBLE_EQ(r.sampling.top_p, 0.9);
  EXPECT_EQ(r.chat.kwargs.Find("reasoning_effort")->AsString(), "low");
  EXPECT_EQ(r.instructions_json, "\"Be brief.\"");
  EXPECT_FALSE(r.tools_enabled);
  EXPECT_EQ(r.grammar, nullptr);
}

// A tool round trip as clients send it back: the previous response's output
// items (reasoning, function calls) and the calls' outputs. It must reach the
// template exactly as the same conversation on /v1/chat/completions does
// (key order included: templates print messages with tojson).
TEST(ResponsesRequest, ItemsBecomeChatMessagesWithToolCallsAndResults) {
  const ResponsesRequest r = Parse(R"({"input":[
      {"role":"developer","content":"Use tools."},
      {"type":"message","role":"user","content":[{"type":"input_text","text":"Weather in "},
                                                  {"type":"input_text","text":"Paris?"}]},
      {"type":"reasoning","id":"rs_1","summary":[],
       "content":[{"type":"reasoning_text","text":"Call the tool."}]},
      {"type":"function_call","id":"fc_1","call_id":"call_a","name":"weather",
       "arguments":"{\"city\":\"Paris\"}","status":"completed"},
      {"type":"function_call","call_id":"call_b","name":"time","arguments":"{}"},
      {"type":"function_call_output","call_id":"call_a","output":"sunny"},
      {"type":"function_call_output","call_id":"call_b",
       "output":[{"type":"input_text","text":"noon"}]},
      {"role":"assistant","content":[{"type":"output_text","text":"Sunny at noon."}]},
      {"role":"user","content":"Thanks"}],
    "tools":[{"type":"function","name":"weather","description":"Forecast",
              "parameters":{"type":"object"},"strict":true},
             {"type":"function","name":"time"}]})");
  EXPECT_EQ(Dump(r.chat.messages),
            R"([{"role": "system", "content": "Use tools."}, )"
            R"({"role": "user", "content": "Weather in Paris?"}, )"
            R"({"role": "assistant", "content": null, "reasoning_content": "Call the tool.", )"
            R"("tool_calls": [{"id": "call_a", "type": "function", "function": )"
            R"({"name": "weather", "arguments": "{\"city\":\"Paris\"}"}}, )"
            R"({"id": "call_b", "type": "function", "function": {"name": "time", )"
            R"("arguments": "{}"}}]}, )"
            R"({"role": "tool", "tool_call_id": "call_a", "name": "weather", "content": "sunny"}, )"
            R"({"role": "tool", "tool_call_id": "call_b", "name": "time", "content": "noon"}, )"
            R"({"role": "assistant", "content": "Sunny at noon."}, )"
            R"({"role": "user", "content": "Thanks"}])");
  EXPECT_EQ(Dump(r.chat.tools),
            R"([{"type": "function", "function": {"name": "weather", "description": "Forecast", )"
            R"("parameters": {"type": "object"}}}, )"
            R"({"type": "function", "function": {"name": "time"}}])");
  EXPECT_TRUE(r.tools_enabled);
  EXPECT_TRUE(r.forced_tools.empty());
}

TEST(ResponsesRequest, ToolChoiceForcesWithdrawsOrNamesAFunction) {
  const std::string tools =
      R"("tools":[{"type":"function","name":"a","parameters":{"type":"object"}},)"
      R"({"type":"function","name":"b"}])";
  EXPECT_EQ(Parse(R"({"input":"x",)" + tools + R"(,"tool_choice":"required"})").forced_tools.size(),
            2u);
  const ResponsesRequest named =
      Parse(R"({"input":"x",)" + tools + R"(,"tool_choice":{"type":"function","name":"b"}})");
  ASSERT_EQ(named.forced_tools.size(), 1u);
  EXPECT_EQ(named.forced_tools[0].name, "b");
  const ResponsesRequest none = Parse(R"({"input":"x",)" + tools + R"(,"tool_choice":"none"})");
  EXPECT_FALSE(none.tools_enabled);
  EXPECT_TRUE(none.chat.tools.is_none());
  EXPECT_EQ(none.tool_choice_json, "\"none\"");
}

TEST(ResponsesRequest, TextFormatJsonSchemaHoldsTheOutputToTheSchema) {
  const ResponsesRequest r = Parse(
      R"({"input":"x","text":{"format":{"type":"json_schema","name":"p","strict":true,)"
      R"("schema":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}}}})");
  ASSERT_NE(r.grammar, nullptr);
  EXPECT_NE(r.text_format_json.find("\"json_schema\""), std::string::npos);
  EXPECT_NE(Parse(R"({"input":"x","text":{"format":{"type":"json_object"}}})").grammar, nullptr);
  EXPECT_EQ(Parse(R"({"input":"x","text":{"format":{"type":"text"}}})").grammar, nullptr);
}

// What a stateless worker cannot honour is refused naming the field, never
// silently ignored.
TEST(ResponsesRequest, RefusesStateHostedToolsAndNonTextContentNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"input":"x","store":true})", "store"},
      {R"({"input":"x","previous_response_id":"resp_1"})", "previous_response_id"},
      {R"({"input":"x","background":true})", "background"},
      {R"({"input":"x","truncation":"auto"})", "truncation"},
      {R"({"input":"x","top_logprobs":3})", "top_logprobs"},
      {R"({"input":"x","include":["message.output_text.logprobs"]})", "include[0]"},
      {R"({"input":"x","tools":[{"type":"web_search"}]})", "tools[0].type"},
      {R"({"input":[{"role":"user","content":[{"type":"input_image","image_url":"u"}]}]})",
       "input[0].content[0].type"},
      {R"({"input":[{"type":"item_reference","id":"msg_1"}]})", "input[0].type"},
      {R"({"input":[{"role":"tool","content":"x"}]})", "input[0].role"},
      {R"({"input":[]})", "input"},
      {R"({"instructions":"x"})", "input"},
      {R"({"input":"x","max_output_tokens":0})", "max_output_tokens"},
      {R"({"input":"x","tool_choice":"required"})", "tool_choice"},
      {R"({"input":"x","tools":[{"type":"function","name":"a"}],)"
       R"("tool_choice":{"type":"function","name":"z"}})",
       "tool_choice.name"},
      {R"({"input":"x","text":{"format":{"type":"json_schema","schema":{"type":"object",)"
       R"("patternProperties":{"a":{}}}}}})",
       "text.format.schema"},
      {R"({"input":"x","reasoning":{"effort":"extreme"}})", "reasoning.effort"},
  };
  for (const auto& [body, field] : cases) {
    auto parsed = ParseResponsesRequest(body, Limits());
    ASSERT_TRUE(std::holds_alternative<ValidationError>(parsed)) << body;
    const ValidationError& e = std::get<ValidationError>(parsed);
    EXPECT_EQ(e.field.substr(0, field.size()), field) << body << ": " << e.message;
  }
  // store: false and the encrypted reasoning Codex asks for are fine.
  Parse(R"({"input":"x","store":false,"include":["reasoning.encrypted_content"]})");
}

using Json = Poco::JSON::Object::Ptr;
Json ParseJson(const std::string& s) { return Poco::JSON::Parser().parse(s).extract<Json>(); }

// Harmony's reasoning then a tool call: a reasoning item, then a function
// call item, streamed as the API's events in order with rising sequence
// numbers, and the same items collected.
TEST(ResponsesOutput, ReasoningThenCallStreamAsItemEventsInOrder) {
  std::vector<std::pair<std::string, Json>> events;
  ResponsesOutput streamed([&](const std::string& type, const std::string& data) {
    events.emplace_back(type, ParseJson(data));
  });
  ResponsesOutput collected;
  const std::string text =
      "<|channel|>analysis<|message|>Call it.<|end|><|start|>assistant<|channel|>commentary "
      "to=functions.weather <|constrain|>json<|message|>{\"city\": \"Paris\"}";
  for (ResponsesOutput* out : {&streamed, &collected}) {
    auto parser = MakeChatOutputParser(ChatOutputFormat::kHarmony, true);
    for (size_t k = 0; k < text.size(); k += 5) parser->Push(text.substr(k, 5), *out);
    parser->Finish(*out);
    out->Finish(true);
  }
  std::vector<std::string> order;
  for (size_t k = 0; k < events.size(); ++k) {
    const auto& [type, data] = events[k];
    EXPECT_EQ(data->getValue<std::string>("type"), type);
    EXPECT_EQ(data->getValue<int>("sequence_number"), static_cast<int>(k));
    if (order.empty() || order.back() != type) order.push_back(type);
  }
  EXPECT_EQ(order, (std::vector<std::string>{
                       "response.output_item.added", "response.content_part.added",
                       "response.reasoning_text.delta", "response.reasoning_text.done",
                       "response.content_part.done", "response.output_item.done",
                       "response.output_item.added", "response.function_call_arguments.delta",
                       "response.function_call_arguments.done", "response.output_item.done"}));
  std::string reasoning, arguments;
  for (const auto& [type, data] : events) {
    if (type == "response.reasoning_text.delta") reasoning += data->getValue<std::string>("delta");
    if (type == "response.function_call_arguments.delta") {
      EXPECT_EQ(data->getValue<int>("output_index"), 1);
      arguments += data->getValue<std::string>("delta");
    }
  }
  EXPECT_EQ(reasoning, "Call it.");
  EXPECT_EQ(arguments, "{\"city\": \"Paris\"}");
  EXPECT_TRUE(collected.has_function_call());
  EXPECT_EQ(collected.reasoning_bytes(), reasoning.size());

  const Poco::JSON::Array::Ptr items =
      Poco::JSON::Parser().parse(collected.OutputJson()).extract<Poco::JSON::Array::Ptr>();
  ASSERT_EQ(items->size(), 2u);
  Json rs = items->getObject(0), fc = items->getObject(1);
  EXPECT_EQ(rs->getValue<std::string>("type"), "reasoning");
  EXPECT_EQ(rs->getArray("content")->getObject(0)->getValue<std::string>("text"), "Call it.");
  EXPECT_EQ(fc->getValue<std::string>("type"), "function_call");
  EXPECT_EQ(fc->getValue<std::string>("name"), "weather");
  EXPECT_EQ(fc->getValue<std::string>("arguments"), "{\"city\": \"Paris\"}");
  EXPECT_EQ(fc->getValue<std::string>("status"), "completed");
  EXPECT_EQ(fc->getValue<std::string>("call_id").rfind("call_", 0), 0u);
  // The streamed item's done event carries what the collected one holds.
  const Json done = events.back().second->getObject("item");
  EXPECT_EQ(done->getValue<std::string>("arguments"), fc->getValue<std::string>("arguments"));
}

TEST(ResponsesOutput, TextCutShortEndsTheMessageIncomplete) {
  ResponsesOutput out;
  out.Content("Hello");
  out.Content(" there");
  out.Finish(false);
  const Json item =
      Poco::JSON::Parser().parse(out.OutputJson()).extract<Poco::JSON::Array::Ptr>()->getObject(0);
  EXPECT_EQ(item->getValue<std::string>("type"), "message");
  EXPECT_EQ(item->getValue<std::string>("status"), "incomplete");
  EXPECT_EQ(item->getArray("content")->getObject(0)->getValue<std::string>("text"), "Hello there");
  EXPECT_FALSE(out.has_function_call());
}

}  // namespace
}  // namespace orcd
