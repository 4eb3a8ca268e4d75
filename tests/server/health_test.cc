// /health and /health/ready as a pool manager written to the spec reads them
// (M0-W-1320, WORK-3041, WORK-3015), over a service whose model is loaded and
// then loses its residency (M0-W-1012): unhealthy, state failed, readiness
// 503, no jobs accepted.
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "host/server/control_handlers.h"
#include "host/server/worker_state.h"

namespace orcd {
namespace {

using Json = Poco::JSON::Object::Ptr;
Json Parse(const std::string& s) { return Poco::JSON::Parser().parse(s).extract<Json>(); }

class FakeService final : public InferenceService {
 public:
  FakeService() {
    facts_.model_name = "m";
    facts_.quant_kind = "MXFP4";
    facts_.tokenizer_kind = "hf-json";
    facts_.vocab_size = 201088;
    facts_.context_length = 4096;
    facts_.bos_id = -1;
    facts_.eos_id = 200002;
    facts_.model_max_context = 131072;
    facts_.vram_bytes = 1234;
  }
  const ModelFacts& facts() const override { return facts_; }
  int64_t CountTokens(const std::string&, bool) override { return 0; }
  int64_t max_prompt_tokens() const override { return 1; }
  ChatPrompt ApplyChatTemplate(const ChatRequest&) override { return {}; }
  GenerationResult Generate(const GenerationInput&, GenerationObserver&) override { return {}; }
  bool Resident() override { return resident.load(); }

  std::atomic<bool> resident{true};

 private:
  ModelFacts facts_;
};

TEST(Health, SpecStatusLifecycleStateAndResidencyLoss) {
  WorkerState state{WorkerConfig{}};
  Json starting = Parse(HealthJson(state));
  EXPECT_EQ(starting->getValue<std::string>("status"), "unhealthy");
  EXPECT_EQ(starting->getValue<std::string>("state"), "starting");
  EXPECT_EQ(ReadyResponse(state).status, 503);

  FakeService service;
  state.PublishService(&service);
  state.SetPhase(WorkerPhase::kReady);
  Json ready = Parse(HealthJson(state));
  EXPECT_EQ(ready->getValue<std::string>("status"), "healthy");
  EXPECT_EQ(ready->getValue<std::string>("state"), "ready");
  EXPECT_TRUE(ready->getValue<bool>("healthy"));
  EXPECT_TRUE(ready->getValue<bool>("resident"));
  EXPECT_EQ(ready->getValue<std::string>("quant_kind"), "MXFP4");
  EXPECT_EQ(ready->getValue<std::string>("tokenizer_kind"), "hf-json");
  EXPECT_EQ(ready->getValue<int64_t>("vram_bytes"), 1234);
  EXPECT_EQ(ready->getValue<int64_t>("vram_bytes_used"), 1234);
  EXPECT_TRUE(ready->isNull("bos_id")) << "no BOS in the vocabulary: null, not -1";
  EXPECT_EQ(ready->getValue<int64_t>("eos_id"), 200002);
  EXPECT_EQ(ready->getValue<int64_t>("model_max_context"), 131072);
  const InlineResponse r = ReadyResponse(state);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(Parse(r.body)->getValue<std::string>("status"), "healthy");
  EXPECT_TRUE(state.accepting());
  EXPECT_FALSE(state.Refusal().has_value());

  service.resident = false;  // the residency check failed
  Json lost = Parse(HealthJson(state));
  EXPECT_EQ(lost->getValue<std::string>("status"), "unhealthy");
  EXPECT_EQ(lost->getValue<std::string>("state"), "failed");
  EXPECT_FALSE(lost->getValue<bool>("resident"));
  EXPECT_FALSE(lost->getValue<bool>("healthy"));
  const InlineResponse gone = ReadyResponse(state);
  EXPECT_EQ(gone.status, 503);
  EXPECT_EQ(Parse(gone.body)->getValue<std::string>("state"), "failed");
  EXPECT_FALSE(state.accepting()) << "new jobs after the residency was lost";
  EXPECT_TRUE(state.model_lost());
  // /execute and the OpenAI endpoints refuse new jobs with the same reason,
  // each in its own shape, without Retry-After: this worker will not recover.
  const auto refusal = state.Refusal();
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->code, "VRAM_RESIDENCY_LOST");
  EXPECT_EQ(refusal->openai_code, "vram_residency_lost");
  EXPECT_EQ(refusal->retry_after_s, 0);
  state.shutting_down = true;
  EXPECT_EQ(state.Refusal()->code, "SHUTTING_DOWN") << "draining is said first";
}

}  // namespace
}  // namespace orcd
