// Anthropic's Messages API through the real orcd-host: the same conversation
// gives the same text as /v1/chat/completions (one template, one model),
// streamed as the API's events in order, counted by count_tokens, ended by a
// stop sequence it names; errors in Anthropic's shape.
#include <gtest/gtest.h>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/integration/worker_process.h"

namespace orcd::testing {
namespace {

using Json = Poco::JSON::Object::Ptr;
Json Parse(const std::string& s) { return Poco::JSON::Parser().parse(s).extract<Json>(); }

constexpr const char* kTurns =
    R"("system":"You are terse.","messages":[{"role":"user","content":"Tell me a story"}])";

TEST(Anthropic, MessagesMatchChatCompletionsStreamAndCount) {
  WorkerProcess w({"--model", FixtureModel("qwen2-tiny.F16.gguf"), "--device", "cpu",
                   "--plugin-dir", ORCD_PLUGIN_DIR});
  ASSERT_TRUE(w.ready()) << w.Logs();
  const std::string body =
      std::string("{") + kTurns + R"(,"max_tokens":8,"temperature":0,"model":"claude-x"})";
  HttpResponse r = HttpPost(w.port(), "/v1/messages", body);
  ASSERT_EQ(r.status, 200) << r.body;
  Json m = Parse(r.body);
  EXPECT_EQ(m->getValue<std::string>("type"), "message");
  EXPECT_EQ(m->getValue<std::string>("role"), "assistant");
  EXPECT_EQ(m->getValue<std::string>("model"), "claude-x");
  EXPECT_EQ(m->getValue<std::string>("stop_reason"), "max_tokens");
  EXPECT_EQ(m->getValue<std::string>("id").rfind("msg_", 0), 0u);
  Poco::JSON::Array::Ptr content = m->getArray("content");
  ASSERT_EQ(content->size(), 1u);
  const std::string text = content->getObject(0)->getValue<std::string>("text");
  EXPECT_EQ(m->getObject("usage")->getValue<int>("output_tokens"), 8);

  HttpResponse chat =
      HttpPost(w.port(), "/v1/chat/completions",
               R"({"messages":[{"role":"system","content":"You are terse."},)"
               R"({"role":"user","content":"Tell me a story"}],"max_tokens":8,"temperature":0})");
  ASSERT_EQ(chat.status, 200) << chat.body;
  Json cj = Parse(chat.body);
  EXPECT_EQ(text,
            cj->getArray("choices")->getObject(0)->getObject("message")->getValue<std::string>(
                "content"));
  const int input_tokens = m->getObject("usage")->getValue<int>("input_tokens");
  EXPECT_EQ(input_tokens, cj->getObject("usage")->getValue<int>("prompt_tokens"));
  HttpResponse counted =
      HttpPost(w.port(), "/v1/messages/count_tokens", std::string("{") + kTurns + "}");
  ASSERT_EQ(counted.status, 200) << counted.body;
  EXPECT_EQ(Parse(counted.body)->getValue<int>("input_tokens"), input_tokens);

  SseStream s(w.port(), "/v1/messages",
              std::string("{") + kTurns + R"(,"max_tokens":8,"temperature":0,"stream":true})");
  ASSERT_EQ(s.status(), 200);
  std::vector<std::string> order;
  std::string streamed;
  for (const SseEvent& e : s.ReadAll()) {
    if (order.empty() || order.back() != e.event) order.push_back(e.event);
    Json data = Parse(e.data);
    EXPECT_EQ(data->getValue<std::string>("type"), e.event);
    if (e.event == "content_block_delta") {
      streamed += data->getObject("delta")->getValue<std::string>("text");
    }
    if (e.event == "message_delta") {
      EXPECT_EQ(data->getObject("delta")->getValue<std::string>("stop_reason"), "max_tokens");
      EXPECT_EQ(data->getObject("usage")->getValue<int>("output_tokens"), 8);
    }
  }
  EXPECT_EQ(order,
            (std::vector<std::string>{"message_start", "content_block_start", "content_block_delta",
                                      "content_block_stop", "message_delta", "message_stop"}));
  EXPECT_EQ(streamed, text);

  // A stop sequence taken from the free run ends the message there, named.
  size_t at = 1;  // the first place where a 2-byte piece of the text occurs first
  while (at + 2 <= text.size() && text.find(text.substr(at, 2)) != at) ++at;
  ASSERT_LE(at + 2, text.size()) << text;
  const std::string stop = text.substr(at, 2);
  std::string escaped;
  for (char c : stop)
    escaped += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  HttpResponse stopped =
      HttpPost(w.port(), "/v1/messages",
               std::string("{") + kTurns +
                   R"(,"max_tokens":8,"temperature":0,"stop_sequences":[")" + escaped + R"("]})");
  ASSERT_EQ(stopped.status, 200) << stopped.body;
  Json sj = Parse(stopped.body);
  EXPECT_EQ(sj->getValue<std::string>("stop_reason"), "stop_sequence");
  EXPECT_EQ(sj->getValue<std::string>("stop_sequence"), stop);
  ASSERT_EQ(sj->getArray("content")->size(), 1u) << stopped.body;
  EXPECT_EQ(sj->getArray("content")->getObject(0)->getValue<std::string>("text"),
            text.substr(0, at));

  HttpResponse bad = HttpPost(w.port(), "/v1/messages", std::string("{") + kTurns + "}");
  EXPECT_EQ(bad.status, 400);
  Json e = Parse(bad.body);
  EXPECT_EQ(e->getValue<std::string>("type"), "error");
  EXPECT_EQ(e->getObject("error")->getValue<std::string>("type"), "invalid_request_error");
  EXPECT_NE(e->getObject("error")->getValue<std::string>("message").find("max_tokens"),
            std::string::npos);
}

// tool_choice "any" and "tool" hold the reply to one tool_use block in the
// template's own call format, its input an instance of the input_schema.
TEST(Anthropic, ToolChoiceAnyAndToolAreEnforced) {
  const std::string cfg = TestFilePath("anthropic-tools.yaml");
  std::ofstream(cfg) << "chat:\n  template_file: " << ORCD_FIXTURES_DIR
                     << "/chat/templates/qwen2.5-7b-instruct.jinja\n";
  WorkerProcess w({"--config", cfg, "--model", FixtureModel("qwen2-tiny.F16.gguf"), "--device",
                   "cpu", "--plugin-dir", ORCD_PLUGIN_DIR});
  ASSERT_TRUE(w.ready()) << w.Logs();
  const std::string tools = R"("tools":[{"name":"lookup","input_schema":{"type":"object",
      "properties":{"id":{"type":"integer","minimum":1,"maximum":9}},"required":["id"],
      "additionalProperties":false}},{"name":"stop","input_schema":{"type":"object",
      "properties":{},"additionalProperties":false}}])";
  for (const std::string& choice :
       {std::string(R"({"type":"any"})"), std::string(R"({"type":"tool","name":"lookup"})")}) {
    for (int seed = 0; seed < 3; ++seed) {
      HttpResponse r = HttpPost(w.port(), "/v1/messages",
                                R"({"model":"m","max_tokens":100,"temperature":1,"seed":)" +
                                    std::to_string(seed) +
                                    R"(,"messages":[{"role":"user","content":"Find item 3."}],)" +
                                    tools + R"(,"tool_choice":)" + choice + "}");
      ASSERT_EQ(r.status, 200) << r.body;
      Json m = Parse(r.body);
      EXPECT_EQ(m->getValue<std::string>("stop_reason"), "tool_use") << r.body;
      Poco::JSON::Array::Ptr content = m->getArray("content");
      Json use;
      for (unsigned i = 0; content && i < content->size(); ++i) {
        if (content->getObject(i)->getValue<std::string>("type") == "tool_use")
          use = content->getObject(i);
      }
      ASSERT_TRUE(use) << r.body;
      const std::string name = use->getValue<std::string>("name");
      if (name == "lookup") {
        const int id = use->getObject("input")->getValue<int>("id");
        EXPECT_TRUE(id >= 1 && id <= 9) << r.body;
      } else {
        EXPECT_EQ(name, "stop") << r.body;
        EXPECT_EQ(choice, R"({"type":"any"})") << "a named tool was not the one called";
      }
    }
  }
}

}  // namespace
}  // namespace orcd::testing
