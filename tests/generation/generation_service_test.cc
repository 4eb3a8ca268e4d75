// The generation service orcd-host serves, on fixture models through the
// real plugins: the facts /health reports, load progress, prompt limits,
// chat templates, seeded reproducibility and error results.
#include "host/generation/generation_service.h"

#include <gtest/gtest.h>

#include "host/common/status.h"
#include "host/plugins/host_services.h"

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
