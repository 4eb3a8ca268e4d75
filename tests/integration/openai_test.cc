// The OpenAI-compatible endpoints, checked at the wire level (the node
// `openai` client test in openai_client_test.sh checks them with a real client).
#include <gtest/gtest.h>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <cstdio>
#include <fstream>

#include "tests/integration/worker_process.h"

namespace orcd::testing {
namespace {

using Json = Poco::JSON::Object::Ptr;

Json Parse(const std::string& s) { return Poco::JSON::Parser().parse(s).extract<Json>(); }

std::unique_ptr<WorkerProcess> StartQwen() {
  auto w = std::make_unique<WorkerProcess>(
      std::vector<std::string>{"--model", FixtureModel("qwen2-tiny.F16.gguf"), "--device", "cpu",
                               "--plugin-dir", ORCD_PLUGIN_DIR});
  EXPECT_TRUE(w->ready()) << w->Logs();
  return w;
}

TEST(OpenAi, ModelsListsTheLoadedModel) {
  auto w = StartQwen();
  Json r = Parse(HttpGet(w->port(), "/v1/models").body);
  EXPECT_EQ(r->getValue<std::string>("object"), "list");
  EXPECT_EQ(r->getArray("data")->getObject(0)->getValue<std::string>("id"), "qwen2-tiny");
}

TEST(OpenAi, CompletionAndChatCompletion) {
  auto w = StartQwen();
  HttpResponse c =
      HttpPost(w->port(), "/v1/completions",
               R"({"model":"qwen2-tiny","prompt":"Hello","max_tokens":5,"temperature":0})");
  ASSERT_EQ(c.status, 200) << c.body;
  Json cj = Parse(c.body);
  EXPECT_EQ(cj->getValue<std::string>("object"), "text_completion");
  Json choice = cj->getArray("choices")->getObject(0);
  EXPECT_EQ(choice->getValue<std::string>("finish_reason"), "length");
  EXPECT_EQ(cj->getObject("usage")->getValue<int>("completion_tokens"), 5);

  HttpResponse chat =
      HttpPost(w->port(), "/v1/chat/completions",
               R"({"model":"qwen2-tiny","messages":[{"role":"system","content":"Be brief."},
                                   {"role":"user","content":"Hi"}],"max_tokens":4,"temperature":0})");
  ASSERT_EQ(chat.status, 200) << chat.body;
  Json chj = Parse(chat.body);
  EXPECT_EQ(chj->getValue<std::string>("object"), "chat.completion");
  Json msg = chj->getArray("choices")->getObject(0)->getObject("message");
  EXPECT_EQ(msg->getValue<std::string>("role"), "assistant");
  EXPECT_TRUE(IsValidUtf8(msg->getValue<std::string>("content")));
  // The ChatML template adds its control tokens: the prompt is longer than the text.
  EXPECT_GT(chj->getObject("usage")->getValue<int>("prompt_tokens"), 8);
}

// The families of the second fixture batch chat through their plugins'
// default formats (the files carry no template): each format's control
// tokens reach the model as single tokens, so the prompt is the rendered
// text's exact token count (Gemma: BOS, <start_of_turn>user\n ... ; Qwen3:
// ChatML without a default system prompt).
TEST(OpenAi, ChatServesGemmaAndQwen3ThroughTheirFormats) {
  struct Case {
    const char* file;
    const char* model;
  };
  for (const Case& c : {Case{"gemma3-tiny.Q4_K_M.gguf", "gemma3-tiny"},
                        Case{"qwen3-tiny.Q4_K_M.gguf", "qwen3-tiny"}}) {
    WorkerProcess w(
        {"--model", FixtureModel(c.file), "--device", "cpu", "--plugin-dir", ORCD_PLUGIN_DIR});
    ASSERT_TRUE(w.ready()) << w.Logs();
    const std::string body = std::string(R"({"model":")") + c.model +
                             R"(","messages":[{"role":"user","content":"Hi"}],"max_tokens":3,)"
                             R"("temperature":0})";
    HttpResponse chat = HttpPost(w.port(), "/v1/chat/completions", body);
    ASSERT_EQ(chat.status, 200) << c.model << ": " << chat.body;
    Json chj = Parse(chat.body);
    Json msg = chj->getArray("choices")->getObject(0)->getObject("message");
    EXPECT_TRUE(IsValidUtf8(msg->getValue<std::string>("content")));
    // "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n" + BOS:
    // BOS, <start_of_turn>, user, \n, Hi, <end_of_turn>, \n, <start_of_turn>,
    // model, \n (the pieces the spm vocabulary has); ChatML's "<|im_start|>user\n
    // Hi<|im_end|>\n<|im_start|>assistant\n" is no shorter than 8.
    const int prompt = chj->getObject("usage")->getValue<int>("prompt_tokens");
    std::printf("%s: %d prompt tokens\n", c.model, prompt);
    EXPECT_GE(prompt, 8) << c.model;
    EXPECT_LE(prompt, 14) << c.model << ": a control token was split into text pieces";
  }
}

TEST(OpenAi, StreamingChatEndsWithDone) {
  auto w = StartQwen();
  SseStream s(
      w->port(), "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":"Hi"}],"max_tokens":3,"stream":true,"temperature":0})");
  ASSERT_EQ(s.status(), 200) << s.error_body();
  std::vector<std::string> data;
  while (auto e = s.Next()) data.push_back(e->data);
  ASSERT_GE(data.size(), 3u);
  EXPECT_EQ(data.back(), "[DONE]");
  Json first = Parse(data.front());
  EXPECT_EQ(first->getValue<std::string>("object"), "chat.completion.chunk");
  EXPECT_EQ(
      first->getArray("choices")->getObject(0)->getObject("delta")->getValue<std::string>("role"),
      "assistant");
  Json last = Parse(data[data.size() - 2]);
  EXPECT_EQ(last->getArray("choices")->getObject(0)->getValue<std::string>("finish_reason"),
            "length");
}

TEST(OpenAi, InvalidRequestIsAnOpenAiError) {
  auto w = StartQwen();
  HttpResponse r = HttpPost(w->port(), "/v1/chat/completions", R"({"messages":[]})");
  EXPECT_EQ(r.status, 400);
  Json e = Parse(r.body)->getObject("error");
  EXPECT_EQ(e->getValue<std::string>("type"), "invalid_request_error");
  EXPECT_EQ(e->getValue<std::string>("param"), "messages");
}

}  // namespace
}  // namespace orcd::testing
