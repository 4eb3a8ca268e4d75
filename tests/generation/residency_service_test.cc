// The residency check through the real generation service on the emulated
// CUDA device (M0-W-1012): the device stops vouching for the weights' memory
// in the middle of a job; within the check's interval the running job ends
// with VRAM_RESIDENCY_LOST, the service reports not resident, and a new job
// is refused the same way. The device is the emulated one behind a wrapper
// whose residency answer the test controls.
#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "host/common/status.h"
#include "host/device/device_context.h"
#include "host/engine/cuda/delegating_runtime.h"
#include "host/engine/cuda/device_runtime.h"
#include "host/engine/engine.h"
#include "host/generation/batch_scheduler.h"
#include "host/generation/generation_service.h"
#include "host/plugins/host_services.h"
#include "host/plugins/plugin_registry.h"
#include "host/sampling/sampler.h"
#include "host/structured/grammar.h"
#include "host/structured/json_schema_grammar.h"
#include "host/tokenizer/tokenizer.h"

namespace orcd {
namespace {

using engine::cuda::DeviceRuntime;

// The emulated device, except that IsDeviceMemory answers false once `lost`,
// and that once `faulted` every copy back and synchronization fails as a
// sticky CUDA error does (cudaErrorIllegalAddress poisons the context).
class LosableDevice final : public engine::cuda::DelegatingRuntime {
 public:
  explicit LosableDevice(std::shared_ptr<DeviceRuntime> d) : DelegatingRuntime(std::move(d)) {}
  std::atomic<bool> lost{false};
  std::atomic<bool> faulted{false};

  bool IsDeviceMemory(const void* p) override {
    return !lost && DelegatingRuntime::IsDeviceMemory(p);
  }
  void CopyToHost(void* dst, const void* src, size_t n) override {
    ThrowIfFaulted();
    DelegatingRuntime::CopyToHost(dst, src, n);
  }
  void Synchronize() override {
    ThrowIfFaulted();
    DelegatingRuntime::Synchronize();
  }

 private:
  void ThrowIfFaulted() {
    if (faulted) throw Error(ErrorCode::kDevice, "an illegal memory access was encountered");
  }
};

// Loses the device's residency (or, `fault`, the device itself) at the
// third token and keeps taking tokens.
class LoseAtThirdToken final : public GenerationObserver {
 public:
  explicit LoseAtThirdToken(LosableDevice& device, bool fault = false)
      : device_(device), fault_(fault) {}
  bool OnToken(int64_t index, const std::string&) override {
    if (index == 2) (fault_ ? device_.faulted : device_.lost) = true;
    ++tokens;
    return true;
  }
  bool Cancelled() override { return false; }
  int tokens = 0;

 private:
  LosableDevice& device_;
  bool fault_;
};

// qwen2-tiny served by the generation service on `device` (no CUDA context:
// the runtime is given).
struct ServiceOnDevice {
  ServiceOnDevice(std::shared_ptr<DeviceRuntime> device, int64_t context_length,
                  int residency_check_seconds = 60, int slots = GenerationOptions{}.slots)
      : plugins(std::make_unique<PluginRegistry>(HostServices())),
        host(CreateDeviceContext("cpu", 0, 1)) {
    plugins->LoadDirectories({ORCD_PLUGIN_DIR});
    GenerationOptions config;
    config.model_path = std::string(ORCD_FIXTURES_DIR) + "/models/qwen2-tiny.F16.gguf";
    config.device = "cuda";
    config.device_runtime = std::move(device);
    config.context_length = context_length;
    config.residency_check_seconds = residency_check_seconds;
    config.slots = slots;
    service = CreateGenerationService(config, *plugins, *host, [](int) {});
  }
  std::unique_ptr<PluginRegistry> plugins;
  std::unique_ptr<DeviceContext> host;
  std::unique_ptr<InferenceService> service;  // destroyed first
};

TEST(ResidencyOnTheEmulatedDevice, LossEndsTheRunningJobAndRefusesTheNext) {
  auto device = std::make_shared<LosableDevice>(engine::cuda::CreateEmulatedRuntime(1ull << 30));
  ServiceOnDevice on(device, 256, /*residency_check_seconds=*/1);
  InferenceService* service = on.service.get();
  ASSERT_TRUE(service->Resident()) << "the check right after the load";

  GenerationInput input;
  input.prompt = "Hello there";
  input.max_tokens = 200;  // hundreds of ms a token emulated: far longer than the 1 s interval
  input.sampling.temperature = 0;  // greedy: the same run every time (no early end of text)
  input.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  LoseAtThirdToken observer(*device);
  const GenerationResult r = service->Generate(input, observer);
  EXPECT_EQ(r.stop_reason, "error");
  EXPECT_EQ(r.error_code, "VRAM_RESIDENCY_LOST") << r.error_message;
  EXPECT_GE(observer.tokens, 3);
  EXPECT_LT(observer.tokens, 200) << "the job ran on after the loss";
  EXPECT_FALSE(service->Resident());

  LoseAtThirdToken next(*device);
  const GenerationResult refused = service->Generate(input, next);
  EXPECT_EQ(refused.error_code, "VRAM_RESIDENCY_LOST");
  EXPECT_EQ(next.tokens, 0);
}

// A sticky device error mid-job (M0-W-1012 / the spec's CUDA_ERROR path):
// the job ends with CUDA_ERROR, not retriable on this worker; the service
// reports the device lost (orcd-host then reports unhealthy, drains and
// exits 3 so that the orchestrator restarts it) and runs nothing more on it.
TEST(DeviceFaultOnTheEmulatedDevice, EndsTheJobAndTakesTheWorkerOutOfService) {
  auto device = std::make_shared<LosableDevice>(engine::cuda::CreateEmulatedRuntime(1ull << 30));
  ServiceOnDevice on(device, 256);
  InferenceService* service = on.service.get();
  ASSERT_FALSE(service->DeviceLost());

  GenerationInput input;
  input.prompt = "Hello there";
  input.max_tokens = 40;
  input.sampling.temperature = 0;
  input.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  LoseAtThirdToken observer(*device, /*fault=*/true);
  const GenerationResult r = service->Generate(input, observer);
  EXPECT_EQ(r.stop_reason, "error");
  EXPECT_EQ(r.error_code, "CUDA_ERROR") << r.error_message;
  EXPECT_NE(r.error_message.find("illegal memory access"), std::string::npos);
  EXPECT_EQ(observer.tokens, 3) << "no token after the fault";
  EXPECT_TRUE(service->DeviceLost());
  EXPECT_FALSE(service->Resident()) << "/health unhealthy, /health/ready 503";

  LoseAtThirdToken next(*device);
  const GenerationResult refused = service->Generate(input, next);
  EXPECT_EQ(refused.stop_reason, "error");
  EXPECT_EQ(next.tokens, 0) << "nothing runs on a lost device";
}

// Logprobs on the CUDA backend come with the device's pick (the sampling
// kernel reduces the row; tests/engine/cuda_sampler_test.cc checks the values
// against the CPU's): a job asking for them chooses what the same job without
// them chooses, greedy and sampled, through the whole service.
class CollectLogprobs final : public GenerationObserver {
 public:
  bool OnToken(int64_t, const std::string& t) override {
    text += t;
    ++tokens;
    return true;
  }
  void OnLogprobs(int64_t index, const TokenLogprobs& lp) override {
    EXPECT_EQ(index, static_cast<int64_t>(logprobs.size()));
    logprobs.push_back(lp);
  }
  bool Cancelled() override { return false; }
  std::string text;
  int tokens = 0;
  std::vector<TokenLogprobs> logprobs;
};

TEST(LogprobsOnTheEmulatedDevice, AskingForThemChangesNoChoice) {
  ServiceOnDevice on(engine::cuda::CreateEmulatedRuntime(1ull << 30), 128);
  InferenceService* service = on.service.get();
  for (const double temperature : {0.0, 0.8}) {
    SCOPED_TRACE(temperature);
    GenerationInput input;
    input.prompt = "Once upon a time";
    input.max_tokens = 8;
    input.sampling.temperature = temperature;
    input.sampling.seed = 5;
    input.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    CollectLogprobs plain, with_logprobs;
    service->Generate(input, plain);
    EXPECT_TRUE(plain.logprobs.empty());
    input.top_logprobs = 2;
    service->Generate(input, with_logprobs);
    EXPECT_EQ(with_logprobs.text, plain.text);
    ASSERT_EQ(with_logprobs.logprobs.size(), static_cast<size_t>(with_logprobs.tokens));
    for (const TokenLogprobs& lp : with_logprobs.logprobs) {
      ASSERT_EQ(lp.top.size(), 2u);
      EXPECT_LE(lp.chosen.logprob, 0.0f);
      if (temperature == 0.0) {
        EXPECT_EQ(lp.chosen.id, lp.top[0].id);
      }
    }
  }
}

// A job at temperature 1 held to `grammar`.
GenerationInput SampledUnder(std::shared_ptr<const structured::Grammar> grammar, int64_t max_tokens,
                             uint64_t seed) {
  GenerationInput in;
  in.prompt = "Pick:";
  in.max_tokens = max_tokens;
  in.sampling.temperature = 1.0;
  in.sampling.seed = seed;
  in.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  in.grammar = std::move(grammar);
  return in;
}

// Structured output on the CUDA backend (emulated), through the batch
// scheduler (two slots): each row is masked with the grammar's bits and
// sampled on the device, and the answer is the schema's instance, ended by
// the grammar.
TEST(StructuredOutputOnTheEmulatedDevice, TheAnswerIsAnInstanceOfTheSchema) {
  ServiceOnDevice on(engine::cuda::CreateEmulatedRuntime(1ull << 30), 128, 60, /*slots=*/2);
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
  const GenerationInput input = SampledUnder(
      structured::JsonSchemaGrammar(parser.parse(
          R"({"type":"object","properties":{"c":{"enum":["red","blue"]},"n":{"type":"integer",
          "minimum":0,"maximum":9}},"required":["c","n"],"additionalProperties":false})")),
      40, 9);
  CollectLogprobs out;
  const GenerationResult r = on.service->Generate(input, out);
  EXPECT_EQ(r.stop_reason, "eos") << r.error_message;
  const auto answer = Poco::JSON::Parser().parse(out.text).extract<Poco::JSON::Object::Ptr>();
  const std::string c = answer->getValue<std::string>("c");
  EXPECT_TRUE(c == "red" || c == "blue") << out.text;
  EXPECT_LE(answer->getValue<int>("n"), 9) << out.text;
}

// A grammar no token of the vocabulary can begin (its one symbol a control
// token the vocabulary lacks): its mask, computed on its request thread while
// the device evaluates the step, fails; that job ends with the error and
// no token, and the job sharing its steps keeps its answer.
TEST(StructuredOutputOnTheEmulatedDevice, AMaskThatFailsEndsOnlyItsJob) {
  ServiceOnDevice on(engine::cuda::CreateEmulatedRuntime(1ull << 30), 128, 60, /*slots=*/2);
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
  structured::GrammarBuilder b;
  const uint32_t root = b.AddRule({{b.ControlToken("<|not-in-this-vocabulary|>")}});
  const GenerationInput impossible =
      SampledUnder(std::make_shared<const structured::Grammar>(b.Build(root)), 8, 4);
  const GenerationInput color =
      SampledUnder(structured::JsonSchemaGrammar(parser.parse(R"({"enum":["red","blue"]})")), 8, 4);
  CollectLogprobs failed_out, answered_out;
  GenerationResult failed;
  std::thread other([&] { failed = on.service->Generate(impossible, failed_out); });
  const GenerationResult answered = on.service->Generate(color, answered_out);
  other.join();
  EXPECT_EQ(failed.stop_reason, "error");
  EXPECT_NE(failed.error_message.find("no token"), std::string::npos) << failed.error_message;
  EXPECT_EQ(failed_out.tokens, 0);
  EXPECT_EQ(answered.stop_reason, "eos") << answered.error_message;
  EXPECT_TRUE(answered_out.text == "\"red\"" || answered_out.text == "\"blue\"")
      << answered_out.text;
}

// The scheduler's step waits for a mask its job is still computing
// (SampleDraw::allowed_later: here a slow one, allowing one id) before it
// samples: every pick is that id, whatever the model prefers.
TEST(ScheduledMasks, TheStepWaitsForAMaskComputedWhileTheDeviceWorks) {
  PluginRegistry plugins(HostServices());
  plugins.LoadDirectories({ORCD_PLUGIN_DIR});
  engine::EngineOptions options;
  options.device = "cuda";
  options.device_runtime = engine::cuda::CreateEmulatedRuntime(1ull << 30);
  options.context_length = 64;
  options.max_sequences = 2;
  const auto e = engine::Engine::Load(
      std::string(ORCD_FIXTURES_DIR) + "/models/qwen2-tiny.F16.gguf", plugins, options);
  BatchScheduler scheduler(*e, SchedulerOptions{});
  const std::unique_ptr<LogitSource> source = scheduler.OpenSequence(32, 0);
  ASSERT_TRUE(source->OverlapsMasks());
  constexpr int32_t kOnly = 1234;
  std::vector<uint64_t> bits(static_cast<size_t>((e->info().vocab + 63) / 64), 0);
  bits[kOnly / 64] |= uint64_t{1} << (kOnly % 64);
  SamplerConfig config;
  config.temperature = 1.0;
  config.seed = 3;
  Sampler sampler(config);
  int later_calls = 0;
  int32_t token = -1;
  const std::vector<int32_t> prompt = {11, 22, 33, 44};
  for (int step = 0; step < 3; ++step) {
    SampleDraw draw = sampler.NextDraw();
    draw.allowed_later = [&] {
      ++later_calls;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      return std::span<const uint64_t>(bits);
    };
    token = step == 0 ? source->PrefillSample(prompt, draw) : source->DecodeSample(token, draw);
    EXPECT_EQ(token, kOnly) << "step " << step;
  }
  EXPECT_EQ(later_calls, 3);
}

// Prefix caching on the CUDA backend (emulated), through the batch scheduler
// (two slots, 32-token blocks): the same long prompt again maps the first
// request's full prompt blocks and, sampled on the device with the same seed,
// gives the same text; the next turn (the history and the answer resent)
// maps the answer's blocks too, evaluated again as prompt once the request
// ended.
TEST(PrefixCachingOnTheEmulatedDevice, ARepeatedPromptGivesTheSameText) {
  ServiceOnDevice on(engine::cuda::CreateEmulatedRuntime(1ull << 30), 256, 60, /*slots=*/2);
  ASSERT_TRUE(on.service->serving().prefix_cache);
  std::string prompt;
  for (int i = 0; i < 20; ++i) prompt += " the quick brown fox";  // 120 tokens
  GenerationInput input;
  input.prompt = prompt;
  // A few tokens: the emulated device is slow (under ASan ~7 s a token),
  // and 12 take prompt + answer past the next block boundary (128).
  input.max_tokens = 12;
  input.sampling.temperature = 0.7;
  input.sampling.seed = 5;
  input.top_logprobs = 0;  // the generated ids
  input.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  CollectLogprobs cold, warm;
  on.service->Generate(input, cold);
  EXPECT_EQ(on.service->serving().prefix_hit_tokens, 0u);
  on.service->Generate(input, warm);
  const uint64_t hits = on.service->serving().prefix_hit_tokens;
  EXPECT_GE(hits, 64u) << "the prompt's full blocks were computed again";
  EXPECT_EQ(warm.text, cold.text);
  ASSERT_EQ(warm.logprobs.size(), 12u);

  // What the next turn can map: its tokens in common with the evaluated
  // ones (prompt + answer but the last), in whole blocks, less its last.
  GenerationInput next = input;
  next.prompt = prompt + warm.text + " and then";
  const Tokenizer& tok = *on.service->tokenizer();
  const std::vector<int32_t> p1 = tok.Encode(prompt, true, true);
  std::vector<int32_t> evaluated = p1;
  for (size_t i = 0; i + 1 < warm.logprobs.size(); ++i)
    evaluated.push_back(warm.logprobs[i].chosen.id);
  const std::vector<int32_t> p2 = tok.Encode(next.prompt, true, true);
  size_t common = 0;
  while (common < p2.size() && common < evaluated.size() && p2[common] == evaluated[common])
    ++common;
  const uint64_t expected = std::min(common, p2.size() - 1) / 32 * 32;
  ASSERT_GT(expected, p1.size() / 32 * 32) << "the answer re-encodes too differently to test";
  CollectLogprobs turn;
  on.service->Generate(next, turn);
  EXPECT_EQ(on.service->serving().prefix_hit_tokens - hits, expected);
  EXPECT_EQ(turn.tokens, 12);

  // One slot keeps the single-sequence path, which maps nothing: no cache.
  ServiceOnDevice one(engine::cuda::CreateEmulatedRuntime(1ull << 30), 256, 60, /*slots=*/1);
  EXPECT_FALSE(one.service->serving().prefix_cache);
}
}  // namespace
}  // namespace orcd
