// OpenAI's Responses API through the real orcd-host: the same conversation
// gives the same text as /v1/chat/completions (one template, one model),
// streamed as the API's events in order whose deltas spell the answer, cut
// short as "incomplete"; a forced function call comes back as a
// function_call item whose arguments fit the schema; refusals in OpenAI's
// error shape.
#include <gtest/gtest.h>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tests/integration/worker_process.h"

namespace orcd::testing {
namespace {

using Json = Poco::JSON::Object::Ptr;
Json Parse(const std::string& s) { return Poco::JSON::Parser().parse(s).extract<Json>(); }

constexpr const char* kConversation =
    R"("instructions":"You are terse.","input":[{"role":"user","content":"Tell me a story"}])";

std::string MessageText(const Json& response) {
  std::string text;
  const Poco::JSON::Array::Ptr output = response->getArray("output");
  for (unsigned i = 0; output && i < output->size(); ++i) {
    const Json item = output->getObject(i);
    if (item->getValue<std::string>("type") != "message") continue;
    const Poco::JSON::Array::Ptr parts = item->getArray("content");
    for (unsigned k = 0; k < parts->size(); ++k) {
      text += parts->getObject(k)->getValue<std::string>("text");
    }
  }
  return text;
}

TEST(Responses, TextMatchesChatCompletionsAndStreamsInOrder) {
  WorkerProcess w({"--model", FixtureModel("qwen2-tiny.F16.gguf"), "--device", "cpu",
                   "--plugin-dir", ORCD_PLUGIN_DIR});
  ASSERT_TRUE(w.ready()) << w.Logs();
  HttpResponse r =
      HttpPost(w.port(), "/v1/responses",
               std::string("{") + kConversation + R"(,"max_output_tokens":8,"temperature":0})");
  ASSERT_EQ(r.status, 200) << r.body;
  Json resp = Parse(r.body);
  EXPECT_EQ(resp->getValue<std::string>("object"), "response");
  EXPECT_EQ(resp->getValue<std::string>("id").rfind("resp_", 0), 0u);
  EXPECT_EQ(resp->getValue<std::string>("status"), "incomplete");
  EXPECT_EQ(resp->getObject("incomplete_details")->getValue<std::string>("reason"),
            "max_output_tokens");
  EXPECT_EQ(resp->getValue<std::string>("instructions"), "You are terse.");
  EXPECT_FALSE(resp->getValue<bool>("store"));
  const std::string text = MessageText(resp);
  EXPECT_EQ(resp->getObject("usage")->getValue<int>("output_tokens"), 8);

  HttpResponse chat =
      HttpPost(w.port(), "/v1/chat/completions",
               R"({"messages":[{"role":"system","content":"You are terse."},)"
               R"({"role":"user","content":"Tell me a story"}],"max_tokens":8,"temperature":0})");
  ASSERT_EQ(chat.status, 200) << chat.body;
  Json cj = Parse(chat.body);
  EXPECT_EQ(text,
            cj->getArray("choices")->getObject(0)->getObject("message")->getValue<std::string>(
                "content"));
  EXPECT_EQ(resp->getObject("usage")->getValue<int>("input_tokens"),
            cj->getObject("usage")->getValue<int>("prompt_tokens"));

  SseStream s(w.port(), "/v1/responses",
              std::string("{") + kConversation +
                  R"(,"max_output_tokens":8,"temperature":0,"stream":true})");
  ASSERT_EQ(s.status(), 200);
  std::vector<std::string> order;
  std::string streamed, done_text;
  int sequence = 0;
  for (const SseEvent& e : s.ReadAll()) {
    if (order.empty() || order.back() != e.event) order.push_back(e.event);
    Json data = Parse(e.data);
    EXPECT_EQ(data->getValue<std::string>("type"), e.event);
    EXPECT_EQ(data->getValue<int>("sequence_number"), sequence++);
    if (e.event == "response.output_text.delta") streamed += data->getValue<std::string>("delta");
    if (e.event == "response.output_text.done") done_text = data->getValue<std::string>("text");
    if (e.event == "response.incomplete") {
      EXPECT_EQ(MessageText(data->getObject("response")), text);
    }
  }
  EXPECT_EQ(order, (std::vector<std::string>{
                       "response.created", "response.in_progress", "response.output_item.added",
                       "response.content_part.added", "response.output_text.delta",
                       "response.output_text.done", "response.content_part.done",
                       "response.output_item.done", "response.incomplete"}));
  EXPECT_EQ(streamed, text);
  EXPECT_EQ(done_text, text);

  HttpResponse stored =
      HttpPost(w.port(), "/v1/responses", std::string("{") + kConversation + R"(,"store":true})");
  EXPECT_EQ(stored.status, 400);
  Json e = Parse(stored.body)->getObject("error");
  EXPECT_EQ(e->getValue<std::string>("type"), "invalid_request_error");
  EXPECT_EQ(e->getValue<std::string>("param"), "store");
  EXPECT_NE(e->getValue<std::string>("message").find("keeps no state"), std::string::npos);
}

// tool_choice "required" holds the reply to one call in the template's own
// format; it comes back as a function_call item, its arguments an instance
// of the parameters schema, whatever the random weights prefer.
TEST(Responses, RequiredToolChoiceGivesAFunctionCallItem) {
  const std::string cfg = "/tmp/orcd-responses-tools-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(cfg) << "chat:\n  template_file: " << ORCD_FIXTURES_DIR
                     << "/chat/templates/qwen2.5-7b-instruct.jinja\n";
  WorkerProcess w({"--config", cfg, "--model", FixtureModel("qwen2-tiny.F16.gguf"), "--device",
                   "cpu", "--plugin-dir", ORCD_PLUGIN_DIR});
  ASSERT_TRUE(w.ready()) << w.Logs();
  const std::string body =
      R"({"input":"Find item 3.","max_output_tokens":100,"tool_choice":"required",)"
      R"("tools":[{"type":"function","name":"lookup","parameters":{"type":"object",)"
      R"("properties":{"id":{"type":"integer","minimum":1,"maximum":9}},"required":["id"],)"
      R"("additionalProperties":false}}]})";
  for (int attempt = 0; attempt < 3; ++attempt) {
    HttpResponse r = HttpPost(w.port(), "/v1/responses", body);
    ASSERT_EQ(r.status, 200) << r.body;
    Json resp = Parse(r.body);
    EXPECT_EQ(resp->getValue<std::string>("status"), "completed") << r.body;
    const Poco::JSON::Array::Ptr output = resp->getArray("output");
    Json call;
    for (unsigned i = 0; output && i < output->size(); ++i) {
      if (output->getObject(i)->getValue<std::string>("type") == "function_call")
        call = output->getObject(i);
    }
    ASSERT_TRUE(call) << r.body;
    EXPECT_EQ(call->getValue<std::string>("name"), "lookup");
    EXPECT_EQ(call->getValue<std::string>("call_id").rfind("call_", 0), 0u);
    const int id = Parse(call->getValue<std::string>("arguments"))->getValue<int>("id");
    EXPECT_TRUE(id >= 1 && id <= 9) << r.body;
  }
  std::remove(cfg.c_str());
}

}  // namespace
}  // namespace orcd::testing
