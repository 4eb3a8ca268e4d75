// The per-job generation loop with a scripted model and the real Qwen2
// tokenizer (fixtures/vocab): every stop reason, stop strings across token
// boundaries, UTF-8-safe streaming, and the held-back tail.
#include "host/generation/token_generator.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "host/common/status.h"
#include "host/tokenizer/tokenizer_factory.h"

namespace orcd {
namespace {

using Clock = std::chrono::steady_clock;

const Tokenizer& Qwen2Tokenizer() {
  static const std::unique_ptr<Tokenizer> t =
      LoadTokenizer(std::string(ORCD_FIXTURES_DIR) + "/vocab/ggml-vocab-qwen2.gguf");
  return *t;
}

// Emits a fixed token sequence: after position p the argmax is script[p -
// prompt length]; past the script, token `tail`.
class ScriptedModel final : public LogitSource {
 public:
  ScriptedModel(std::vector<int32_t> script, int64_t vocab, int64_t context = 4096)
      : script_(std::move(script)), logits_(static_cast<size_t>(vocab)), context_(context) {}
  void Reset() override {
    position_ = 0;
    emitted_ = 0;
  }
  std::span<const float> Prefill(std::span<const int32_t> tokens) override {
    position_ += static_cast<int64_t>(tokens.size());
    ++prefill_calls;
    return Next();
  }
  std::span<const float> Decode(int32_t token) override {
    decoded.push_back(token);
    ++position_;
    return Next();
  }
  int64_t position() const override { return position_; }
  int64_t context_length() const override { return context_; }

  int prefill_calls = 0;
  std::vector<int32_t> decoded;

 private:
  std::span<const float> Next() {
    std::fill(logits_.begin(), logits_.end(), 0.0f);
    const size_t k = static_cast<size_t>(emitted_++);
    const int32_t id = k < script_.size() ? script_[k] : 15;  // "0"
    logits_[static_cast<size_t>(id)] = 10.0f;
    return logits_;
  }
  std::vector<int32_t> script_;
  std::vector<float> logits_;
  int64_t context_;
  int64_t position_ = 0;
  int64_t emitted_ = 0;
};

class RecordingObserver final : public GenerationObserver {
 public:
  bool OnToken(int64_t index, const std::string& text) override {
    indices.push_back(index);
    texts.push_back(text);
    all += text;
    return !(disconnect_after >= 0 && static_cast<int64_t>(texts.size()) >= disconnect_after);
  }
  bool Cancelled() override {
    return cancel_after >= 0 && static_cast<int64_t>(texts.size()) >= cancel_after;
  }

  std::vector<int64_t> indices;
  std::vector<std::string> texts;
  std::string all;
  int64_t cancel_after = -1;
  int64_t disconnect_after = -1;
};

GenerationInput Greedy(int64_t max_tokens, std::vector<std::string> stop = {}) {
  GenerationInput in;
  in.prompt = "unused";
  in.max_tokens = max_tokens;
  in.sampling.temperature = 0;
  in.stop = std::move(stop);
  in.deadline = Clock::now() + std::chrono::minutes(1);
  return in;
}

std::vector<int32_t> Ids(const std::string& text) {
  return Qwen2Tokenizer().Encode(text, false, false);
}

int64_t Vocab() { return static_cast<int64_t>(Qwen2Tokenizer().vocab_size()); }

TEST(TokenGenerator, StreamsTheScriptedTextAndStopsAtMaxTokens) {
  const std::vector<int32_t> script = Ids("Hello, world! How are you?");
  ScriptedModel model(script, Vocab());
  RecordingObserver obs;
  const auto r = GenerateTokens(model, Qwen2Tokenizer(), {1, 2, 3},
                                Greedy(static_cast<int64_t>(script.size())), obs, {});
  EXPECT_EQ(r.stop_reason, "max_tokens");
  EXPECT_EQ(r.tokens_out, static_cast<int64_t>(script.size()));
  EXPECT_EQ(r.prompt_tokens, 3);
  EXPECT_EQ(obs.all, "Hello, world! How are you?");
  EXPECT_EQ(model.prefill_calls, 1) << "the prompt is one prefill, not one decode per token";
  // Each generated token but the last is fed back; the last is never evaluated.
  EXPECT_EQ(model.decoded, std::vector<int32_t>(script.begin(), script.end() - 1));
  for (size_t i = 0; i < obs.indices.size(); ++i)
    EXPECT_EQ(obs.indices[i], static_cast<int64_t>(i));
  EXPECT_GE(r.ttft_ms, 0);
}

TEST(TokenGenerator, EndOfGenerationTokenEndsWithEosAndIsNotEmitted) {
  std::vector<int32_t> script = Ids("Done.");
  const TokenId eos = Qwen2Tokenizer().special_ids().eos;
  ASSERT_NE(eos, kNoToken);
  script.push_back(eos);
  ScriptedModel model(script, Vocab());
  RecordingObserver obs;
  const auto r = GenerateTokens(model, Qwen2Tokenizer(), {1}, Greedy(100), obs, {});
  EXPECT_EQ(r.stop_reason, "eos");
  EXPECT_EQ(r.tokens_out, static_cast<int64_t>(script.size()) - 1);
  EXPECT_EQ(obs.all, "Done.");
}

TEST(TokenGenerator, StopStringAcrossTokensIsMatchedAndNotEmitted) {
  const std::vector<int32_t> script = Ids("The answer is 42.\n\nQuestion: next");
  ScriptedModel model(script, Vocab());
  RecordingObserver obs;
  const auto r = GenerateTokens(model, Qwen2Tokenizer(), {1}, Greedy(100, {"\n\nQuest"}), obs, {});
  EXPECT_EQ(r.stop_reason, "stop");
  EXPECT_EQ(obs.all, "The answer is 42.");
  EXPECT_LT(r.tokens_out, static_cast<int64_t>(script.size())) << "generation ends at the stop";
}

TEST(TokenGenerator, HeldBackPrefixOfAStopStringIsReleasedAtTheEnd) {
  const std::vector<int32_t> script = Ids("value: END");
  ScriptedModel model(script, Vocab());
  RecordingObserver obs;
  // "ENDING" never completes: the held "END" must still reach the client.
  const auto r = GenerateTokens(model, Qwen2Tokenizer(), {1},
                                Greedy(static_cast<int64_t>(script.size()), {"ENDING"}), obs, {});
  EXPECT_EQ(r.stop_reason, "max_tokens");
  EXPECT_EQ(obs.all, "value: END");
  EXPECT_EQ(obs.indices.back(), r.tokens_out - 1)
      << "the tail goes out with the last token's index";
}

TEST(TokenGenerator, MultibyteCharactersAreNeverSplitAcrossEvents) {
  const std::string text = "你好世界 👋🌍 café";
  const std::vector<int32_t> script = Ids(text);
  ScriptedModel model(script, Vocab());
  RecordingObserver obs;
  GenerateTokens(model, Qwen2Tokenizer(), {1}, Greedy(static_cast<int64_t>(script.size())), obs,
                 {});
  EXPECT_EQ(obs.all, text);
  for (const std::string& t : obs.texts) {
    // No event may end inside a UTF-8 sequence (a continuation byte must
    // never start the next event).
    if (!t.empty()) {
      EXPECT_NE(static_cast<unsigned char>(t.front()) & 0xC0, 0x80) << t;
    }
  }
}

TEST(TokenGenerator, CancelIsHonouredBetweenTokens) {
  ScriptedModel model(Ids("a b c d e f g h i j k l"), Vocab());
  RecordingObserver obs;
  obs.cancel_after = 3;
  const auto r = GenerateTokens(model, Qwen2Tokenizer(), {1}, Greedy(100), obs, {});
  EXPECT_EQ(r.stop_reason, "cancelled");
  EXPECT_EQ(r.tokens_out, 3);
}

TEST(TokenGenerator, ClientGoneStopsAtTheFailedWrite) {
  ScriptedModel model(Ids("a b c d e f g h i j k l"), Vocab());
  RecordingObserver obs;
  obs.disconnect_after = 2;
  const auto r = GenerateTokens(model, Qwen2Tokenizer(), {1}, Greedy(100), obs, {});
  EXPECT_EQ(r.stop_reason, "client_gone");
  EXPECT_EQ(r.tokens_out, 2);
}

TEST(TokenGenerator, PassedDeadlineIsATimeout) {
  ScriptedModel model(Ids("a b c"), Vocab());
  RecordingObserver obs;
  GenerationInput in = Greedy(100);
  in.deadline = Clock::now() - std::chrono::seconds(1);
  const auto r = GenerateTokens(model, Qwen2Tokenizer(), {1}, in, obs, {});
  EXPECT_EQ(r.stop_reason, "timeout");
  EXPECT_EQ(r.tokens_out, 0);
}

TEST(TokenGenerator, FullContextEndsTheJobInsteadOfOverrunningTheCache) {
  ScriptedModel model(Ids("a b c d e f g h i j k l m n o p"), Vocab(), /*context=*/8);
  RecordingObserver obs;
  const auto r = GenerateTokens(model, Qwen2Tokenizer(), {1, 2, 3, 4, 5}, Greedy(100), obs, {});
  EXPECT_EQ(r.stop_reason, "context_full");
  EXPECT_LE(model.position(), 8) << "never evaluates past the allocated context";
  EXPECT_EQ(r.tokens_out, 8 - 5 + 1)
      << "positions 5..7 are evaluated, the last sampled token is still returned";
}

TEST(TokenGenerator, DebugDelaySlowsEachToken) {
  ScriptedModel model(Ids("a b c d"), Vocab());
  RecordingObserver obs;
  GeneratorOptions options;
  options.debug_token_delay = std::chrono::milliseconds(20);
  const auto r = GenerateTokens(model, Qwen2Tokenizer(), {1}, Greedy(4), obs, options);
  EXPECT_EQ(r.tokens_out, 4);
  EXPECT_GE(r.decode_ms, 3 * 20.0) << "three decode steps, each delayed";
}

// The end of generation releases held-back text with a token of its own:
// each index reaches the client once, and as many indices as tokens_out.
TEST(TokenGenerator, HeldBackTextAtEosDoesNotRepeatAnIndex) {
  std::vector<int32_t> script = Ids("value: END");
  script.push_back(Qwen2Tokenizer().special_ids().eos);
  ScriptedModel model(script, Vocab());
  RecordingObserver obs;
  const auto r = GenerateTokens(model, Qwen2Tokenizer(), {1}, Greedy(100, {"ENDING"}), obs, {});
  EXPECT_EQ(r.stop_reason, "eos");
  EXPECT_EQ(obs.all, "value: END");
  ASSERT_EQ(static_cast<int64_t>(obs.indices.size()), r.tokens_out);
  for (size_t i = 0; i < obs.indices.size(); ++i)
    EXPECT_EQ(obs.indices[i], static_cast<int64_t>(i)) << "no index twice";
}

// A model whose prefill runs "layers" and asks the stop check between them,
// as the engine does: a cancel or deadline ends the job inside the prefill.
class LayeredModel final : public LogitSource {
 public:
  explicit LayeredModel(int64_t vocab) : logits_(static_cast<size_t>(vocab)) {}
  void Reset() override {}
  std::span<const float> Prefill(std::span<const int32_t>) override {
    for (layers_run = 0; layers_run < 1000; ++layers_run) {
      if (check_ && check_()) throw Error(ErrorCode::kStopped, "stopped");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return logits_;
  }
  std::span<const float> Decode(int32_t) override { return logits_; }
  int64_t position() const override { return 1; }
  int64_t context_length() const override { return 4096; }
  void SetStopCheck(std::function<bool()> check) override { check_ = std::move(check); }
  bool has_check() const { return static_cast<bool>(check_); }
  int layers_run = 0;

 private:
  std::vector<float> logits_;
  std::function<bool()> check_;
};

TEST(TokenGenerator, CancelDuringPrefillStopsBetweenLayers) {
  LayeredModel model(Vocab());
  RecordingObserver obs;
  obs.cancel_after = 0;  // cancelled from the start
  const auto r = GenerateTokens(model, Qwen2Tokenizer(), {1, 2}, Greedy(5), obs, {});
  EXPECT_EQ(r.stop_reason, "cancelled");
  EXPECT_EQ(r.tokens_out, 0);
  EXPECT_TRUE(obs.indices.empty());
  EXPECT_LT(model.layers_run, 10) << "stopped at the first check, not after the prefill";
  EXPECT_FALSE(model.has_check()) << "the check is removed when the job ends";
}

TEST(TokenGenerator, DeadlineDuringPrefillIsATimeout) {
  LayeredModel model(Vocab());
  RecordingObserver obs;
  GenerationInput in = Greedy(5);
  in.deadline = Clock::now() + std::chrono::milliseconds(50);
  const auto t0 = Clock::now();
  const auto r = GenerateTokens(model, Qwen2Tokenizer(), {1, 2}, in, obs, {});
  EXPECT_EQ(r.stop_reason, "timeout");
  EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(500)) << "the prefill alone takes 1 s";
  EXPECT_GT(model.layers_run, 0);
}

}  // namespace
}  // namespace orcd
