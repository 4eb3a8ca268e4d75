// The generation service orcd-host serves, on fixture models through the
// real plugins: the facts /health reports, load progress, prompt limits,
// chat templates, seeded reproducibility and error results.
#include "host/generation/generation_service.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "host/common/status.h"
#include "host/plugins/host_services.h"
#include "host/tokenizer/tokenizer.h"

namespace orcd {
namespace {

const PluginRegistry& Plugins() {
  static PluginRegistry* registry = [] {
    auto* r = new PluginRegistry(HostServices());
    r->LoadDirectories({ORCD_PLUGIN_DIR});
    return r;
  }();
  return *registry;
}

std::string Fixture(const std::string& name) {
  return std::string(ORCD_FIXTURES_DIR) + "/models/" + name;
}

struct Loaded {
  std::unique_ptr<DeviceContext> device;
  std::unique_ptr<InferenceService> service;
  std::vector<int> progress;
};

Loaded Load(const std::string& model, int64_t context = 256, int64_t max_input = 0,
            bool prefix_cache = true) {
  GenerationOptions config;
  config.prefix_cache = prefix_cache;
  config.model_path = Fixture(model);
  config.device = "cpu";
  config.threads = 2;
  config.context_length = context;
  config.max_input_tokens = max_input;
  Loaded l;
  l.device = CreateDeviceContext("cpu", 0, 2);
  l.service = CreateGenerationService(config, Plugins(), *l.device,
                                      [&l](int p) { l.progress.push_back(p); });
  return l;
}

class Collect final : public GenerationObserver {
 public:
  bool OnToken(int64_t, const std::string& text) override {
    texts.push_back(text);
    return true;
  }
  bool Cancelled() override { return false; }
  std::vector<std::string> texts;
};

GenerationInput Input(const std::string& prompt, int64_t n, double temperature, uint64_t seed) {
  GenerationInput in;
  in.prompt = prompt;
  in.max_tokens = n;
  in.sampling.temperature = temperature;
  in.sampling.seed = seed;
  in.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  return in;
}

TEST(GenerationService, FactsDescribeTheLoadedModel) {
  Loaded l = Load("qwen2-tiny.Q4_K_M.gguf");
  const ModelFacts& f = l.service->facts();
  EXPECT_EQ(f.model_name, "qwen2-tiny");
  EXPECT_EQ(f.architecture, "qwen2");
  EXPECT_EQ(f.quant_kind, "Q4_K_M");
  EXPECT_EQ(f.tokenizer_kind, "gguf-bpe");
  EXPECT_EQ(f.vocab_size, 4099);
  EXPECT_EQ(f.context_length, 256) << "the configured context, not the model's";
  EXPECT_EQ(f.vram_bytes, 0u);
  EXPECT_EQ(f.expert_count, 0);
  EXPECT_EQ(l.progress, (std::vector<int>{0, 25, 50, 75, 100}))
      << "the CPU backend reports every quarter of the weight bytes read";
  EXPECT_EQ(l.service->max_prompt_tokens(), 255);
}

TEST(GenerationService, SameSeedSameTextGreedyAndSampled) {
  Loaded l = Load("qwen2-tiny.F16.gguf");
  for (double temperature : {0.0, 0.7}) {
    Collect a, b;
    const auto ra = l.service->Generate(Input("The quick brown fox", 12, temperature, 99), a);
    const auto rb = l.service->Generate(Input("The quick brown fox", 12, temperature, 99), b);
    EXPECT_EQ(ra.stop_reason, rb.stop_reason);
    EXPECT_EQ(ra.tokens_out, rb.tokens_out);
    EXPECT_EQ(a.texts, b.texts) << "temperature " << temperature;
    EXPECT_GT(ra.tokens_out, 0);
  }
}

// Prefix caching through the scheduler: the second request with the same
// long prompt maps the first one's full prompt blocks (32 positions each)
// instead of computing them, and generates the same text, greedy and
// sampled; another cache_salt finds nothing; with the cache off, nothing is
// looked up and the text is the same.
TEST(GenerationService, ARepeatedPromptHitsThePrefixCacheWithTheSameText) {
  std::string prompt;
  for (int i = 0; i < 30; ++i) prompt += " the quick brown fox";  // > 64 tokens
  for (double temperature : {0.0, 0.7}) {
    Loaded l = Load("qwen2-tiny.F16.gguf");
    ASSERT_TRUE(l.service->serving().prefix_cache);
    Collect cold, warm, salted;
    l.service->Generate(Input(prompt, 12, temperature, 5), cold);
    EXPECT_EQ(l.service->serving().prefix_hit_tokens, 0u);
    EXPECT_GT(l.service->serving().kv_blocks_cached, 1);
    l.service->Generate(Input(prompt, 12, temperature, 5), warm);
    const uint64_t hits = l.service->serving().prefix_hit_tokens;
    EXPECT_GE(hits, 64u) << "the prompt's full blocks were computed again";
    EXPECT_EQ(hits % 32, 0u);
    EXPECT_EQ(warm.texts, cold.texts) << "temperature " << temperature;
    GenerationInput other = Input(prompt, 12, temperature, 5);
    other.cache_salt = "tenant-b";
    l.service->Generate(other, salted);
    EXPECT_EQ(l.service->serving().prefix_hit_tokens, hits) << "another salt found blocks";
    EXPECT_EQ(salted.texts, cold.texts);

    Loaded off = Load("qwen2-tiny.F16.gguf", 256, 0, false);
    Collect a, b;
    off.service->Generate(Input(prompt, 12, temperature, 5), a);
    off.service->Generate(Input(prompt, 12, temperature, 5), b);
    EXPECT_FALSE(off.service->serving().prefix_cache);
    EXPECT_EQ(off.service->serving().prefix_query_tokens, 0u);
    EXPECT_EQ(b.texts, cold.texts);
  }
}

// A conversation's next turn resends the history: the previous prompt, the
// answer, a new message. Once a request ends, its generated tokens are
// evaluated again as prompt tokens (their decode-step KV has other bits), so
// the next turn maps the answer's full blocks too, not only the prompt's
// (arriving at once, it waits for them), and still generates the text a
// cold run does.
class CollectIds final : public GenerationObserver {
 public:
  bool OnToken(int64_t, const std::string& text) override {
    texts.push_back(text);
    return true;
  }
  void OnLogprobs(int64_t, const TokenLogprobs& lp) override { ids.push_back(lp.chosen.id); }
  bool Cancelled() override { return false; }
  std::vector<std::string> texts;
  std::vector<int32_t> ids;
};

TEST(GenerationService, TheNextTurnFindsThePreviousAnswerCached) {
  std::string prompt;
  for (int i = 0; i < 20; ++i) prompt += " the quick brown fox";
  Loaded l = Load("qwen2-tiny.F16.gguf");
  GenerationInput first = Input(prompt, 48, 0.0, 5);
  first.top_logprobs = 0;  // the generated ids
  CollectIds turn1;
  ASSERT_EQ(l.service->Generate(first, turn1).stop_reason, "max_tokens");

  std::string answer;
  for (const std::string& t : turn1.texts) answer += t;
  const std::string next = prompt + answer + " and then";
  // What the cache can hold of it: its tokens in common with the first
  // turn's evaluated ones (prompt + answer but the last, never evaluated),
  // up to the last whole block the answer's caching filled (rows of a block
  // the next turn leaves part way are copied), leaving the last prompt token
  // to evaluate.
  const Tokenizer& tok = *l.service->tokenizer();
  const std::vector<int32_t> p1 = tok.Encode(prompt, true, true);
  std::vector<int32_t> evaluated = p1;
  evaluated.insert(evaluated.end(), turn1.ids.begin(), turn1.ids.end() - 1);
  const std::vector<int32_t> p2 = tok.Encode(next, true, true);
  size_t common = 0;
  while (common < p2.size() && common < evaluated.size() && p2[common] == evaluated[common]) {
    ++common;
  }
  const uint64_t expected = std::min({common, p2.size() - 1, evaluated.size() / 32 * 32});
  ASSERT_GT(expected, p1.size() / 32 * 32) << "the answer re-encodes too differently to test";

  // Sent at once, as a client with no think time (an agent) does: the turn
  // waits for the answer's blocks rather than computing them again.
  const uint64_t before = l.service->serving().prefix_hit_tokens;
  Collect warm;
  l.service->Generate(Input(next, 12, 0.0, 5), warm);
  EXPECT_EQ(l.service->serving().answers_cached, 1u);
  EXPECT_EQ(l.service->serving().prefix_hit_tokens - before, expected);
  Loaded off = Load("qwen2-tiny.F16.gguf", 256, 0, false);
  Collect cold;
  off.service->Generate(Input(next, 12, 0.0, 5), cold);
  EXPECT_EQ(warm.texts, cold.texts) << "a hit changed the output";
}

// Caching an answer is background work (mixed_step.h): while another job
// decodes in every step it waits, but a next turn that comes for it makes it
// run at once, beside that job, instead of waiting for the job to end.
class CountTokens final : public GenerationObserver {
 public:
  bool OnToken(int64_t, const std::string&) override {
    ++tokens;
    return true;
  }
  bool Cancelled() override { return false; }
  std::atomic<int> tokens{0};
};

TEST(GenerationService, ATurnComingForItsAnswerDoesNotWaitForTheOtherJobs) {
  std::string prompt;
  for (int i = 0; i < 20; ++i) prompt += " the quick brown fox";
  Loaded l = Load("qwen2-tiny.F16.gguf", 512);
  // The other job: 400 tokens, one in each of 400 steps.
  CountTokens other;
  std::atomic<bool> turns_done{false};
  bool other_outlived_the_turns = false;
  std::string other_stop;
  std::thread job([&] {
    other_stop = l.service->Generate(Input(" hello there", 400, 0.0, 9), other).stop_reason;
    other_outlived_the_turns = turns_done.load();
  });
  while (other.tokens.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  GenerationInput first = Input(prompt, 48, 0.0, 5);
  first.top_logprobs = 0;
  CollectIds turn1;
  ASSERT_EQ(l.service->Generate(first, turn1).stop_reason, "max_tokens");
  std::string answer;
  for (const std::string& t : turn1.texts) answer += t;
  const uint64_t before = l.service->serving().prefix_hit_tokens;
  Collect turn2;
  l.service->Generate(Input(prompt + answer + " and then", 12, 0.0, 5), turn2);
  turns_done = true;
  job.join();

  EXPECT_EQ(other_stop, "max_tokens");
  EXPECT_TRUE(other_outlived_the_turns) << "the next turn waited for the other job to end";
  EXPECT_EQ(l.service->serving().answers_cached, 1u);
  const size_t prompt_blocks = l.service->tokenizer()->Encode(prompt, true, true).size() / 32;
  EXPECT_GT(l.service->serving().prefix_hit_tokens - before, prompt_blocks * 32)
      << "the next turn mapped the cached answer's blocks too";
}

// A sliding-window model (gpt-oss) through the scheduler: requests that
// share a system prompt and differ after it by more than a block. The first
// leaves a copy of its windows only at its own prompt's last full block; the
// second finds the shared blocks but no windows there, so it computes them
// again and ends a step at their end (the scheduler's cut at PromptStop),
// which leaves the copy: the third maps the shared blocks. The text is the
// cache-off service's every time.
TEST(GenerationService, ASharedSystemPromptIsMappedOnASlidingWindowModel) {
  std::string system;
  for (int i = 0; i < 25; ++i) system += " the quick brown fox";
  Loaded l = Load("gptoss-tiny.MXFP4_MOE.gguf");
  Loaded off = Load("gptoss-tiny.MXFP4_MOE.gguf", 256, 0, false);
  ASSERT_TRUE(l.service->serving().prefix_cache);
  const uint64_t shared = l.service->tokenizer()->Encode(system, true, true).size() / 32 * 32;
  ASSERT_GE(shared, 64u);
  std::vector<uint64_t> hits;
  for (const char* word : {" red", " green", " blue"}) {
    std::string question;
    for (int i = 0; i < 40; ++i) question += word;  // past the shared blocks' next block
    Collect on_text, off_text;
    l.service->Generate(Input(system + question, 6, 0.0, 5), on_text);
    off.service->Generate(Input(system + question, 6, 0.0, 5), off_text);
    EXPECT_EQ(on_text.texts, off_text.texts) << word;
    hits.push_back(l.service->serving().prefix_hit_tokens);
  }
  EXPECT_EQ(hits[1], 0u) << "the second request mapped windows that were never copied";
  EXPECT_EQ(hits[2] - hits[1], shared) << "the third request did not map the shared blocks";
}

TEST(GenerationService, PromptOverTheLimitIsAnErrorResultNotACrash) {
  Loaded l = Load("qwen2-tiny.F16.gguf", 256, 16);
  EXPECT_EQ(l.service->max_prompt_tokens(), 16);
  std::string prompt;
  for (int i = 0; i < 40; ++i) prompt += " word";
  ASSERT_GT(l.service->CountTokens(prompt), 16);
  Collect c;
  const auto r = l.service->Generate(Input(prompt, 4, 0, 1), c);
  EXPECT_EQ(r.stop_reason, "error");
  EXPECT_EQ(r.error_code, "INVALID_REQUEST") << "a spec code, not a private one";
  EXPECT_TRUE(c.texts.empty());
  // The service is still usable.
  const auto ok = l.service->Generate(Input("short", 2, 0, 1), c);
  EXPECT_EQ(ok.stop_reason, "max_tokens");
}

ChatRequest UserSays(const std::string& text) {
  jinja::Dict m;
  m.Set("role", jinja::Value("user"));
  m.Set("content", jinja::Value(text));
  ChatRequest r;
  r.messages = jinja::Value::List({jinja::Value::FromDict(std::move(m))});
  return r;
}

TEST(GenerationService, ChatTemplateFollowsTheModelFamily) {
  Loaded qwen = Load("qwen2-tiny.F16.gguf");
  const ChatPrompt prompt = qwen.service->ApplyChatTemplate(UserSays("Hi"));
  const std::string& chat = prompt.text;
  // The plugin's C++ default format writes no BOS: the vocabulary's rule adds it.
  EXPECT_TRUE(prompt.add_special_tokens);
  EXPECT_NE(chat.find("<|im_start|>user\nHi<|im_end|>\n"), std::string::npos) << chat;
  EXPECT_TRUE(chat.ends_with("<|im_start|>assistant\n")) << chat;
  // Control tokens written by the template are single tokens, not text.
  EXPECT_LT(qwen.service->CountTokens("<|im_start|>"), 3);

  Loaded phi = Load("phi3-tiny.Q4_K_M.gguf");
  EXPECT_EQ(phi.service->ApplyChatTemplate(UserSays("Hi")).text,
            "<|user|>\nHi<|end|>\n<|assistant|>\n");
}

TEST(GenerationService, MissingModelFailsAtLoadNamingThePath) {
  try {
    Load("no-such-model.gguf");
    FAIL() << "loaded a missing file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-model.gguf"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace orcd
