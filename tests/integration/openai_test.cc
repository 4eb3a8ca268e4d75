// The OpenAI-compatible endpoints, checked at the wire level (the node
// `openai` client test in openai_client_test.sh checks them with a real client).
#include <gtest/gtest.h>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

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

// stream_options.include_usage: the finish chunk carries no usage; one more
// chunk with no choices carries it, before [DONE]. Without it, no usage at all.
TEST(OpenAi, StreamUsageOnlyWhenAskedFor) {
  auto w = StartQwen();
  for (bool include : {true, false}) {
    SseStream s(w->port(), "/v1/completions",
                std::string(R"({"prompt":"Hello","max_tokens":4,"stream":true,"temperature":0)") +
                    (include ? R"(,"stream_options":{"include_usage":true}})" : "}"));
    ASSERT_EQ(s.status(), 200) << s.error_body();
    std::vector<std::string> data;
    while (auto e = s.Next()) data.push_back(e->data);
    ASSERT_GE(data.size(), 3u);
    ASSERT_EQ(data.back(), "[DONE]");
    int with_usage = 0;
    for (size_t i = 0; i + 1 < data.size(); ++i) with_usage += Parse(data[i])->has("usage");
    if (!include) {
      EXPECT_EQ(with_usage, 0) << "usage sent unasked";
      continue;
    }
    EXPECT_EQ(with_usage, 1);
    Json usage_chunk = Parse(data[data.size() - 2]);
    EXPECT_EQ(usage_chunk->getArray("choices")->size(), 0u);
    EXPECT_EQ(usage_chunk->getObject("usage")->getValue<int>("completion_tokens"), 4);
    Json finish = Parse(data[data.size() - 3]);
    EXPECT_EQ(finish->getArray("choices")->getObject(0)->getValue<std::string>("finish_reason"),
              "length");
  }
  HttpResponse r = HttpPost(w->port(), "/v1/completions",
                            R"({"prompt":"Hi","stream_options":{"include_usage":true}})");
  EXPECT_EQ(r.status, 400) << "stream_options without stream";
}

// A field whose effect this worker does not implement is refused, naming it,
// instead of being silently ignored; its no-op values and unknown fields pass.
TEST(OpenAi, UnsupportedFieldsAreRefusedByName) {
  auto w = StartQwen();
  const std::string chat = R"("messages":[{"role":"user","content":"Hi"}],"max_tokens":2)";
  const std::pair<const char*, const char*> refused[] = {
      {"/v1/completions", R"("echo":true)"},
      {"/v1/completions", R"("best_of":3)"},
      {"/v1/completions", R"("suffix":"end")"},
  };
  for (const auto& [path, field] : refused) {
    const bool is_chat = std::string(path) == "/v1/chat/completions";
    const std::string body =
        "{" + (is_chat ? chat : R"("prompt":"Hi","max_tokens":2)") + "," + field + "}";
    HttpResponse r = HttpPost(w->port(), path, body);
    ASSERT_EQ(r.status, 400) << field;
    Json e = Parse(r.body)->getObject("error");
    const std::string name = std::string(field).substr(1, std::string(field).find('"', 1) - 1);
    EXPECT_EQ(e->getValue<std::string>("param"), name) << r.body;
    EXPECT_NE(e->getValue<std::string>("message").find("not supported"), std::string::npos)
        << r.body;
  }
  for (const char* field :
       {R"("logprobs":false)", R"("n":1)", R"("presence_penalty":0.5)", R"("logit_bias":{})",
        R"("frequency_penalty":-1)", R"("logit_bias":{"15":-100})", R"("logprobs":true)",
        R"("response_format":{"type":"text"})", R"("user":"u-17")", R"("metadata":{"a":"b"})",
        R"("response_format":{"type":"json_object"})"}) {
    HttpResponse r = HttpPost(w->port(), "/v1/chat/completions", "{" + chat + "," + field + "}");
    EXPECT_EQ(r.status, 200) << field << ": " << r.body;
  }
}

// logprobs in OpenAI's shapes: one entry per generated token, the greedy
// token the most probable of its alternatives, the tokens spelling the text;
// streamed, the same entries over the chunks.
TEST(OpenAi, LogprobsInOpenAisShapes) {
  auto w = StartQwen();
  HttpResponse c = HttpPost(w->port(), "/v1/chat/completions",
                            R"({"messages":[{"role":"user","content":"Hi"}],"max_tokens":5,)"
                            R"("temperature":0,"logprobs":true,"top_logprobs":3})");
  ASSERT_EQ(c.status, 200) << c.body;
  Json choice = Parse(c.body)->getArray("choices")->getObject(0);
  Poco::JSON::Array::Ptr content = choice->getObject("logprobs")->getArray("content");
  ASSERT_EQ(content->size(), 5u);
  std::string spelled;
  std::vector<double> chat_logprobs;
  for (size_t k = 0; k < content->size(); ++k) {
    Json t = content->getObject(static_cast<unsigned>(k));
    const double lp = t->getValue<double>("logprob");
    EXPECT_LE(lp, 0.0);
    chat_logprobs.push_back(lp);
    spelled += t->getValue<std::string>("token");
    Poco::JSON::Array::Ptr top = t->getArray("top_logprobs");
    ASSERT_EQ(top->size(), 3u);
    EXPECT_EQ(top->getObject(0)->getValue<std::string>("token"), t->getValue<std::string>("token"))
        << "greedy: the chosen token is the most probable";
    EXPECT_DOUBLE_EQ(top->getObject(0)->getValue<double>("logprob"), lp);
    EXPECT_GE(top->getObject(1)->getValue<double>("logprob"),
              top->getObject(2)->getValue<double>("logprob"));
    EXPECT_EQ(t->getArray("bytes")->size(), t->getValue<std::string>("token").size());
  }
  EXPECT_EQ(spelled, choice->getObject("message")->getValue<std::string>("content"));

  SseStream s(w->port(), "/v1/chat/completions",
              R"({"messages":[{"role":"user","content":"Hi"}],"max_tokens":5,)"
              R"("temperature":0,"logprobs":true,"stream":true})");
  std::vector<double> streamed;
  for (const SseEvent& e : s.ReadAll()) {
    if (e.data == "[DONE]") continue;
    Json chunk = Parse(e.data)->getArray("choices")->getObject(0);
    if (!chunk->has("logprobs") || chunk->isNull("logprobs")) continue;
    Poco::JSON::Array::Ptr part = chunk->getObject("logprobs")->getArray("content");
    for (size_t k = 0; k < part->size(); ++k) {
      streamed.push_back(part->getObject(static_cast<unsigned>(k))->getValue<double>("logprob"));
      EXPECT_EQ(part->getObject(static_cast<unsigned>(k))->getArray("top_logprobs")->size(), 0u);
    }
  }
  EXPECT_EQ(streamed, chat_logprobs) << "the same entries, streamed";

  HttpResponse t =
      HttpPost(w->port(), "/v1/completions",
               R"({"prompt":"Once upon","max_tokens":4,"temperature":0,"logprobs":2})");
  ASSERT_EQ(t.status, 200) << t.body;
  Json text_choice = Parse(t.body)->getArray("choices")->getObject(0);
  Json lp = text_choice->getObject("logprobs");
  Poco::JSON::Array::Ptr tokens = lp->getArray("tokens");
  ASSERT_EQ(tokens->size(), 4u);
  ASSERT_EQ(lp->getArray("token_logprobs")->size(), 4u);
  ASSERT_EQ(lp->getArray("top_logprobs")->size(), 4u);
  ASSERT_EQ(lp->getArray("text_offset")->size(), 4u);
  std::string text;
  for (unsigned k = 0; k < 4; ++k) {
    EXPECT_EQ(lp->getArray("text_offset")->getElement<int>(k), static_cast<int>(text.size()));
    text += tokens->getElement<std::string>(k);
    EXPECT_EQ(lp->getArray("top_logprobs")->getObject(k)->size(), 2u);
  }
  EXPECT_EQ(text, text_choice->getValue<std::string>("text"));
  HttpResponse both = HttpPost(w->port(), "/v1/chat/completions",
                               R"({"messages":[{"role":"user","content":"Hi"}],"top_logprobs":2})");
  EXPECT_EQ(both.status, 400) << "top_logprobs without logprobs";
  EXPECT_EQ(HttpPost(w->port(), "/v1/completions", R"({"prompt":"Hi","logprobs":6})").status, 400);
}

// logit_bias moves the choice (+100 forces a token, -100 bans it), asked
// logprobs change nothing in the tokens chosen, and the bias is checked
// against the vocabulary.
TEST(OpenAi, LogitBiasAndPenaltiesChangeTheChoice) {
  auto w = StartQwen();
  auto text = [&](const std::string& extra) {
    HttpResponse r =
        HttpPost(w->port(), "/v1/completions",
                 R"({"prompt":"Once upon","max_tokens":6,"temperature":0)" + extra + "}");
    EXPECT_EQ(r.status, 200) << r.body;
    return Parse(r.body)->getArray("choices")->getObject(0)->getValue<std::string>("text");
  };
  const std::string free_text = text("");
  EXPECT_EQ(text(R"(,"logprobs":3)"), free_text) << "logprobs do not change the tokens";
  HttpResponse tok = HttpPost(w->port(), "/tokenize", R"({"content":"K"})");
  const int k_id = Parse(tok.body)->getArray("tokens")->getElement<int>(0);
  EXPECT_EQ(text(R"(,"logit_bias":{")" + std::to_string(k_id) + R"(":100})"), "KKKKKK");
  // The tiny model's greedy output repeats one token; penalties of 2 on
  // what was generated break the repeat.
  const std::string penalized = text(R"(,"frequency_penalty":2,"presence_penalty":2)");
  EXPECT_NE(penalized, free_text);
  EXPECT_EQ(
      HttpPost(w->port(), "/v1/completions", R"({"prompt":"Hi","logit_bias":{"abc":1}})").status,
      400);
  EXPECT_EQ(
      HttpPost(w->port(), "/v1/completions", R"({"prompt":"Hi","logit_bias":{"1":101}})").status,
      400);
  EXPECT_EQ(
      HttpPost(w->port(), "/v1/completions", R"({"prompt":"Hi","presence_penalty":2.5})").status,
      400);
}

// n choices: each its own sequence with its own seed, generated at once;
// a seeded request gives the same choices again, streamed or not.
TEST(OpenAi, NChoicesAreIndependentReproducibleAndStreamedByIndex) {
  auto w = StartQwen();
  const std::string body =
      R"({"prompt":"Once upon a time","max_tokens":6,"temperature":1.0,"seed":11,"n":3)";
  auto texts = [&](const std::string& extra) {
    HttpResponse r = HttpPost(w->port(), "/v1/completions", body + extra + "}");
    EXPECT_EQ(r.status, 200) << r.body;
    Json j = Parse(r.body);
    Poco::JSON::Array::Ptr choices = j->getArray("choices");
    std::vector<std::string> out;
    int tokens = 0;
    for (unsigned c = 0; c < choices->size(); ++c) {
      EXPECT_EQ(choices->getObject(c)->getValue<int>("index"), static_cast<int>(c));
      out.push_back(choices->getObject(c)->getValue<std::string>("text"));
    }
    tokens = j->getObject("usage")->getValue<int>("completion_tokens");
    EXPECT_EQ(tokens, 18) << "the usage counts every choice's tokens";
    return out;
  };
  const std::vector<std::string> first = texts("");
  ASSERT_EQ(first.size(), 3u);
  EXPECT_TRUE(first[0] != first[1] || first[1] != first[2]) << "choices draw their own tokens";
  EXPECT_EQ(texts(""), first) << "a seeded request gives the same choices";

  SseStream s(w->port(), "/v1/completions", body + R"(,"stream":true})");
  std::vector<std::string> streamed(3);
  int finishes = 0;
  for (const SseEvent& e : s.ReadAll()) {
    if (e.data == "[DONE]") continue;
    Json choice = Parse(e.data)->getArray("choices")->getObject(0);
    const int index = choice->getValue<int>("index");
    ASSERT_GE(index, 0);
    ASSERT_LT(index, 3);
    streamed[static_cast<size_t>(index)] += choice->getValue<std::string>("text");
    if (!choice->isNull("finish_reason")) ++finishes;
  }
  EXPECT_EQ(streamed, first);
  EXPECT_EQ(finishes, 3);

  HttpResponse chat = HttpPost(w->port(), "/v1/chat/completions",
                               R"({"messages":[{"role":"user","content":"Hi"}],"max_tokens":4,)"
                               R"("temperature":0,"n":2})");
  ASSERT_EQ(chat.status, 200) << chat.body;
  Poco::JSON::Array::Ptr greedy = Parse(chat.body)->getArray("choices");
  ASSERT_EQ(greedy->size(), 2u);
  EXPECT_EQ(greedy->getObject(0)->getObject("message")->getValue<std::string>("content"),
            greedy->getObject(1)->getObject("message")->getValue<std::string>("content"))
      << "greedy choices agree";
  EXPECT_EQ(HttpPost(w->port(), "/v1/completions", R"({"prompt":"Hi","n":17})").status, 400);
}

// With prefix caching the choices of one request evaluate the prompt once:
// the others start after choice 0's first token and map its blocks (the
// prompt cache's hit counter grows by their full blocks), and still give
// the same seeded choices as a request that computes each prompt.
int64_t MetricValue(int port, const std::string& name) {
  const std::string text = HttpGet(port, "/metrics").body;
  const size_t at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stoll(text.substr(at + name.size() + 2));
}

TEST(OpenAi, NChoicesEvaluateThePromptOnce) {
  std::string prompt;
  for (int i = 0; i < 30; ++i) prompt += " the quick brown fox";  // > 96 tokens
  const std::string body =
      R"({"prompt":")" + prompt + R"(","max_tokens":5,"temperature":1.0,"seed":21,"n":3})";
  auto w = StartQwen();
  HttpResponse shared = HttpPost(w->port(), "/v1/completions", body);
  ASSERT_EQ(shared.status, 200) << shared.body;
  const int64_t hits = MetricValue(w->port(), "worker_prefix_cache_hit_tokens_total");
  EXPECT_GE(hits, 2 * 96) << "choices 1 and 2 computed the prompt again";

  const std::string cfg = "/tmp/orcd-n-prefix-off-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(cfg) << "server:\n  prefix_cache: off\n";
  WorkerProcess off({"--config", cfg, "--model", FixtureModel("qwen2-tiny.F16.gguf"), "--device",
                     "cpu", "--plugin-dir", ORCD_PLUGIN_DIR});
  std::remove(cfg.c_str());
  ASSERT_TRUE(off.ready()) << off.Logs();
  EXPECT_EQ(MetricValue(off.port(), "worker_prefix_cache_hit_tokens_total"), 0);
  HttpResponse computed = HttpPost(off.port(), "/v1/completions", body);
  ASSERT_EQ(computed.status, 200) << computed.body;
  const auto texts = [](const std::string& json) {
    std::vector<std::string> out;
    Poco::JSON::Array::Ptr choices = Parse(json)->getArray("choices");
    for (unsigned c = 0; c < choices->size(); ++c)
      out.push_back(choices->getObject(c)->getValue<std::string>("text"));
    return out;
  };
  EXPECT_EQ(texts(shared.body), texts(computed.body));
}

// usage.prompt_tokens_details.cached_tokens (OpenAI's field; Responses:
// input_tokens_details) says how much of the prompt the prefix cache held:
// 0 the first time, the mapped blocks (the hit counter's growth) when the
// same prompt comes again, never the whole prompt (its last token is always
// evaluated), and the same in a stream's usage chunk.
TEST(OpenAi, UsageSaysHowManyPromptTokensWereCached) {
  std::string prompt;
  for (int i = 0; i < 30; ++i) prompt += " the quick brown fox";  // > 96 tokens
  const std::string body = R"({"prompt":")" + prompt + R"(","max_tokens":3,"temperature":0)";
  auto w = StartQwen();
  const auto cached = [](const std::string& json, const char* usage_field, const char* details) {
    Json usage = Parse(json)->getObject(usage_field);
    return std::pair{
        usage->getObject(details)->getValue<int64_t>("cached_tokens"),
        usage->getValue<int64_t>(std::string(details) == "prompt_tokens_details" ? "prompt_tokens"
                                                                                 : "input_tokens")};
  };
  HttpResponse first = HttpPost(w->port(), "/v1/completions", body + "}");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(cached(first.body, "usage", "prompt_tokens_details").first, 0);

  HttpResponse again = HttpPost(w->port(), "/v1/completions", body + "}");
  ASSERT_EQ(again.status, 200) << again.body;
  const auto [hit, prompt_tokens] = cached(again.body, "usage", "prompt_tokens_details");
  EXPECT_GE(hit, 96) << again.body;
  EXPECT_LT(hit, prompt_tokens);
  EXPECT_EQ(hit, MetricValue(w->port(), "worker_prefix_cache_hit_tokens_total"));

  SseStream s(w->port(), "/v1/completions",
              body + R"(,"stream":true,"stream_options":{"include_usage":true}})");
  ASSERT_EQ(s.status(), 200) << s.error_body();
  std::string usage_chunk;
  while (auto e = s.Next()) {
    if (e->data != "[DONE]" && Parse(e->data)->has("usage")) usage_chunk = e->data;
  }
  ASSERT_FALSE(usage_chunk.empty());
  EXPECT_EQ(cached(usage_chunk, "usage", "prompt_tokens_details").first, hit);

  const std::string input =
      R"({"input":")" + prompt + R"(","max_output_tokens":3,"temperature":0})";
  HttpResponse r1 = HttpPost(w->port(), "/v1/responses", input);
  ASSERT_EQ(r1.status, 200) << r1.body;
  EXPECT_EQ(cached(r1.body, "usage", "input_tokens_details").first, 0) << "another prompt";
  HttpResponse r2 = HttpPost(w->port(), "/v1/responses", input);
  ASSERT_EQ(r2.status, 200) << r2.body;
  EXPECT_GE(cached(r2.body, "usage", "input_tokens_details").first, 96) << r2.body;
}

// llama-server's /tokenize and /detokenize, with the served vocabulary.
TEST(OpenAi, TokenizeAndDetokenizeRoundTrip) {
  auto w = StartQwen();
  HttpResponse t = HttpPost(w->port(), "/tokenize", R"({"content":"Hello world<|im_end|>"})");
  ASSERT_EQ(t.status, 200) << t.body;
  Poco::JSON::Array::Ptr ids = Parse(t.body)->getArray("tokens");
  ASSERT_GE(ids->size(), 3u);
  // <|im_end|> is one token (parse_special defaults to true): its piece is its text.
  HttpResponse last =
      HttpPost(w->port(), "/tokenize", R"({"content":"<|im_end|>","with_pieces":true})");
  ASSERT_EQ(last.status, 200) << last.body;
  Poco::JSON::Array::Ptr special = Parse(last.body)->getArray("tokens");
  ASSERT_EQ(special->size(), 1u) << last.body;
  EXPECT_EQ(special->getObject(0)->getValue<std::string>("piece"), "<|im_end|>");
  EXPECT_EQ(special->getObject(0)->getValue<int>("id"),
            ids->getElement<int>(static_cast<unsigned>(ids->size() - 1)));
  HttpResponse plain =
      HttpPost(w->port(), "/tokenize", R"({"content":"<|im_end|>","parse_special":false})");
  ASSERT_EQ(plain.status, 200);
  EXPECT_GT(Parse(plain.body)->getArray("tokens")->size(), 1u) << "parsed as text";

  std::string list;
  for (size_t i = 0; i < ids->size(); ++i) {
    list += (i ? "," : "") + std::to_string(ids->getElement<int>(static_cast<unsigned>(i)));
  }
  HttpResponse d = HttpPost(w->port(), "/detokenize", R"({"tokens":[)" + list + "]}");
  ASSERT_EQ(d.status, 200) << d.body;
  EXPECT_EQ(Parse(d.body)->getValue<std::string>("content"), "Hello world<|im_end|>");

  HttpResponse p =
      HttpPost(w->port(), "/tokenize", R"({"content":"Hello world","with_pieces":true})");
  ASSERT_EQ(p.status, 200) << p.body;
  Poco::JSON::Array::Ptr pieces = Parse(p.body)->getArray("tokens");
  std::string joined;
  for (size_t i = 0; i < pieces->size(); ++i) {
    Json piece = pieces->getObject(static_cast<unsigned>(i));
    EXPECT_EQ(piece->getValue<int>("id"), ids->getElement<int>(static_cast<unsigned>(i)));
    joined += piece->getValue<std::string>("piece");
  }
  EXPECT_EQ(joined, "Hello world") << "the pieces spell the text (byte-level BPE's text form)";

  HttpResponse bad = HttpPost(w->port(), "/detokenize", R"({"tokens":[1,-5]})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("tokens[1]"), std::string::npos) << bad.body;
  EXPECT_EQ(HttpPost(w->port(), "/tokenize", R"({"content":7})").status, 400);
}

TEST(OpenAi, InvalidRequestIsAnOpenAiError) {
  auto w = StartQwen();
  HttpResponse r = HttpPost(w->port(), "/v1/chat/completions", R"({"messages":[]})");
  EXPECT_EQ(r.status, 400);
  Json e = Parse(r.body)->getObject("error");
  EXPECT_EQ(e->getValue<std::string>("type"), "invalid_request_error");
  EXPECT_EQ(e->getValue<std::string>("param"), "messages");
}

// response_format json_schema: the answer is an instance of the schema,
// its properties in the schema's order, streamed or not; a schema the worker
// cannot honour is a 400 naming the keyword.
TEST(OpenAi, ResponseFormatHoldsTheAnswerToTheSchema) {
  auto w = StartQwen();
  const std::string format = R"("response_format":{"type":"json_schema","json_schema":{
      "name":"person","strict":true,"schema":{"type":"object","properties":{
      "name":{"type":"string","maxLength":10},"age":{"type":"integer","minimum":0,"maximum":99},
      "pets":{"type":"array","items":{"enum":["cat","dog"]},"maxItems":2}},
      "required":["name","age","pets"],"additionalProperties":false}}})";
  for (int seed = 0; seed < 4; ++seed) {
    const std::string body = R"({"messages":[{"role":"user","content":"Describe a person."}],
        "max_tokens":200,"temperature":1,"seed":)" +
                             std::to_string(seed) + "," + format + "}";
    HttpResponse r = HttpPost(w->port(), "/v1/chat/completions", body);
    ASSERT_EQ(r.status, 200) << r.body;
    Json choice = Parse(r.body)->getArray("choices")->getObject(0);
    EXPECT_EQ(choice->getValue<std::string>("finish_reason"), "stop");
    const std::string content = choice->getObject("message")->getValue<std::string>("content");
    Json person = Parse(content);
    EXPECT_TRUE(person->has("name") && person->has("age") && person->has("pets")) << content;
    EXPECT_EQ(content.rfind(R"({"name":")", 0), 0u) << "the schema's order: " << content;
    EXPECT_LE(person->getValue<int>("age"), 99);

    HttpResponse streamed = HttpPost(w->port(), "/v1/chat/completions",
                                     body.substr(0, body.size() - 1) + R"(,"stream":true})");
    ASSERT_EQ(streamed.status, 200);
    std::string joined;
    for (size_t at = 0; (at = streamed.body.find("data: {", at)) != std::string::npos; ++at) {
      const size_t end = streamed.body.find('\n', at);
      Json chunk = Parse(streamed.body.substr(at + 6, end - at - 6));
      Json delta = chunk->getArray("choices")->getObject(0)->getObject("delta");
      if (delta && delta->has("content")) joined += delta->getValue<std::string>("content");
    }
    EXPECT_EQ(joined, content) << "streamed and whole answers differ (seed " << seed << ")";
  }

  HttpResponse refused =
      HttpPost(w->port(), "/v1/completions",
               R"({"prompt":"x","response_format":{"type":"json_schema","json_schema":{"name":"s",
          "schema":{"type":"array","uniqueItems":true}}}})");
  ASSERT_EQ(refused.status, 400) << refused.body;
  Json e = Parse(refused.body)->getObject("error");
  EXPECT_EQ(e->getValue<std::string>("param"), "response_format.json_schema.schema");
  EXPECT_NE(e->getValue<std::string>("message").find("'uniqueItems'"), std::string::npos)
      << refused.body;
}

// A tool call of ToolChoiceRequiredAndNamedAreEnforced's functions whose
// arguments are an instance of its parameters; returns its name.
std::string ExpectValidCall(const Json& call, const std::string& body) {
  Json function = call->getObject("function");
  const std::string name = function->getValue<std::string>("name");
  Json args = Parse(function->getValue<std::string>("arguments"));
  if (name == "get_weather") {
    EXPECT_LE(args->getValue<std::string>("city").size(), 32u);
    const int days = args->getValue<int>("days");
    EXPECT_TRUE(days >= 1 && days <= 7) << body;
  } else {
    EXPECT_EQ(name, "get_time") << body;
    const std::string zone = args->getValue<std::string>("zone");
    EXPECT_TRUE(zone == "UTC" || zone == "CET") << body;
  }
  return name;
}

// tool_choice "required" and a named function hold the reply to one call in
// the template's own format (Qwen2.5's <tool_call> tags, Llama 3.1's JSON),
// parsed into tool_calls whose arguments are instances of the function's
// parameters, whatever a random-weight model would rather write; with tools
// "auto" and response_format json, the reply is such a call or the schema's
// instance as content.
TEST(OpenAi, ToolChoiceRequiredAndNamedAreEnforced) {
  const std::string tools = R"("tools":[{"type":"function","function":{"name":"get_weather",
      "parameters":{"type":"object","properties":{"city":{"type":"string","maxLength":8},
      "days":{"type":"integer","minimum":1,"maximum":7}},"required":["city","days"],
      "additionalProperties":false}}},{"type":"function","function":{"name":"get_time",
      "parameters":{"type":"object","properties":{"zone":{"enum":["UTC","CET"]}},
      "required":["zone"],"additionalProperties":false}}}])";
  for (const auto& [model, chat_template] :
       {std::pair{"qwen2-tiny.F16.gguf", "qwen2.5-7b-instruct.jinja"},
        std::pair{"llama3-tiny.F16.gguf", "llama-3.1-8b-instruct.jinja"}}) {
    const std::string cfg = TestFilePath("tools.yaml");
    std::ofstream(cfg) << "chat:\n  template_file: "
                       << std::string(ORCD_FIXTURES_DIR) + "/chat/templates/" + chat_template
                       << "\n";
    WorkerProcess w({"--config", cfg, "--model", FixtureModel(model), "--device", "cpu",
                     "--plugin-dir", ORCD_PLUGIN_DIR});
    ASSERT_TRUE(w.ready()) << w.Logs();
    for (const std::string& choice :
         {std::string(R"("required")"),
          std::string(R"({"type":"function","function":{"name":"get_time"}})")}) {
      for (int seed = 0; seed < 3; ++seed) {
        const std::string body = R"({"messages":[{"role":"user","content":"Weather in Paris?"}],)" +
                                 tools + R"(,"tool_choice":)" + choice +
                                 R"(,"max_tokens":120,"temperature":1,"seed":)" +
                                 std::to_string(seed) + "}";
        HttpResponse r = HttpPost(w.port(), "/v1/chat/completions", body);
        ASSERT_EQ(r.status, 200) << r.body;
        Json c = Parse(r.body)->getArray("choices")->getObject(0);
        EXPECT_EQ(c->getValue<std::string>("finish_reason"), "tool_calls")
            << model << ": " << r.body;
        Poco::JSON::Array::Ptr calls = c->getObject("message")->getArray("tool_calls");
        ASSERT_TRUE(calls && calls->size() == 1) << model << ": " << r.body;
        const std::string name = ExpectValidCall(calls->getObject(0), r.body);
        if (choice != R"("required")") {
          EXPECT_EQ(name, "get_time") << r.body;
        }
      }
    }
    const std::string format = R"(,"response_format":{"type":"json_schema","json_schema":{
        "name":"a","schema":{"type":"object","properties":{"answer":{"enum":["yes","no"]}},
        "required":["answer"],"additionalProperties":false}}})";
    for (int seed = 0; seed < 4; ++seed) {
      const std::string body = R"({"messages":[{"role":"user","content":"Weather in Paris?"}],)" +
                               tools + format + R"(,"max_tokens":120,"temperature":1,"seed":)" +
                               std::to_string(seed) + "}";
      HttpResponse r = HttpPost(w.port(), "/v1/chat/completions", body);
      ASSERT_EQ(r.status, 200) << r.body;
      Json c = Parse(r.body)->getArray("choices")->getObject(0);
      Json message = c->getObject("message");
      if (c->getValue<std::string>("finish_reason") == "tool_calls") {
        Poco::JSON::Array::Ptr calls = message->getArray("tool_calls");
        ASSERT_TRUE(calls && calls->size() == 1) << model << ": " << r.body;
        ExpectValidCall(calls->getObject(0), r.body);
      } else {
        EXPECT_EQ(c->getValue<std::string>("finish_reason"), "stop") << model << ": " << r.body;
        const std::string answer =
            Parse(message->getValue<std::string>("content"))->getValue<std::string>("answer");
        EXPECT_TRUE(answer == "yes" || answer == "no") << r.body;
      }
    }
  }
}

}  // namespace
}  // namespace orcd::testing
