// stories260K (models/README.md), the real trained model the demo serves, on
// the CPU backend: the text the server writes for it, and the quirks of a
// real, older GGUF file, each handled as llama.cpp handles it.
//
// Its teacher-forced logits are checked with the other goldens
// (golden_logits_test.cc) and its greedy token ids against llama.cpp's on the
// CPU and on the emulated CUDA device (cuda_emulated_golden_test.cc,
// GreedyOnDevice); this file checks the text and the file's metadata.
//
// llama.cpp references are to its source as bundled in node-llama-cpp 3.22.1
// (the goldens' reference build), files under llama.cpp/.
#include <Poco/JSON/Parser.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine_test_support.h"
#include "golden.h"
#include "host/device/device_context.h"
#include "host/generation/generation_service.h"
#include "host/gguf/gguf_file.h"
#include "host/server/worker_config.h"
#include "host/tokenizer/streaming_detokenizer.h"
#include "host/tokenizer/tokenizer_factory.h"

namespace orcd::testing {
namespace {

constexpr const char* kStories = "real/stories260K";

// README.md, "Two commands": the demo's answers to "Once upon a time" at
// temperature 0, 40 tokens (the curl call) and 64 (the OpenAI client's).
constexpr const char* kReadmeStory40 =
    ", there was a little girl named Lily. She loved to play outside in the park. One day, she "
    "saw a big, red ball.";
constexpr const char* kReadmeStory64 =
    ", there was a little girl named Lily. She loved to play outside in the park. One day, she "
    "saw a big, red ball. She wanted to play with it, but it was too high.\nLily's mom said";

// The golden's texts, which golden.h does not carry: the prompt llama.cpp
// tokenized and the text of its 48 greedy tokens.
struct GoldenTexts {
  std::string prompt;
  std::string greedy;
};

GoldenTexts LoadGoldenTexts() {
  std::ifstream json(FixtureModel(kStories).replace_extension(".golden.json"));
  std::stringstream text;
  text << json.rdbuf();
  auto obj = Poco::JSON::Parser().parse(text.str()).extract<Poco::JSON::Object::Ptr>();
  return {obj->getValue<std::string>("prompt_text"), obj->getValue<std::string>("greedy_text")};
}

struct Served {
  std::unique_ptr<DeviceContext> device;
  std::unique_ptr<InferenceService> service;
};

// The generation service orcd-host runs, on the CPU as the demo runs it.
Served Serve(const WorkerConfig& worker) {
  GenerationOptions config = GenerationOptionsFrom(worker);
  config.device = "cpu";
  config.threads = 2;
  Served s;
  s.device = CreateDeviceContext("cpu", 0, 2);
  s.service = CreateGenerationService(config, BuildPlugins(), *s.device, [](int) {});
  return s;
}

Served ServeFixture(int64_t context_length) {
  WorkerConfig config;
  config.model_path = FixtureModel(kStories).string();
  config.context_length = context_length;
  return Serve(config);
}

class Collect final : public GenerationObserver {
 public:
  bool OnToken(int64_t, const std::string& piece) override {
    pieces.push_back(piece);
    return true;
  }
  bool Cancelled() override { return false; }
  std::vector<std::string> pieces;  // one per token, as the server streams them
};

std::string Join(const std::vector<std::string>& pieces, size_t n) {
  std::string text;
  for (size_t i = 0; i < n && i < pieces.size(); ++i) text += pieces[i];
  return text;
}

// Greedy generation of n tokens through the service; `text` gets them all.
GenerationResult Greedy(InferenceService& service, const std::string& prompt, int64_t n,
                        std::string* text, std::vector<std::string>* pieces = nullptr) {
  GenerationInput in;
  in.prompt = prompt;
  in.max_tokens = n;
  in.sampling.temperature = 0;
  in.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  Collect collect;
  GenerationResult r = service.Generate(in, collect);
  *text = Join(collect.pieces, collect.pieces.size());
  if (pieces != nullptr) *pieces = std::move(collect.pieces);
  return r;
}

// The golden's prompt, as text through the server's path (tokenizer, BOS,
// greedy decoding, streaming detokenizer), writes llama.cpp's 48-token
// continuation exactly; and orcd's detokenizer turns llama.cpp's ids into
// llama.cpp's text. Together with GreedyOnDevice (the same ids) this is the
// golden's greedy text, ids and string. (The golden's text is llama.cpp's
// detokenization of the 48 ids alone, so it starts "play", without the
// SentencePiece space of the first token "▁play"; a generation continues its
// prompt, so orcd's stream, like llama.cpp's server, keeps it: " play".)
TEST(Stories260KText, GreedyTextFromTheGoldenPromptIsLlamaCpps) {
  const Golden golden = LoadGolden(kStories);
  const GoldenTexts texts = LoadGoldenTexts();
  ASSERT_EQ(golden.greedy.size(), 48u);

  const auto tokenizer = LoadTokenizer(FixtureModel(kStories));
  EXPECT_EQ(tokenizer->Encode(texts.prompt, /*add_special=*/true, /*parse_special=*/false),
            golden.prompt);
  EXPECT_EQ(DecodeTokens(*tokenizer, golden.greedy), texts.greedy);

  Served s = ServeFixture(512);
  std::string text;
  const GenerationResult r = Greedy(*s.service, texts.prompt, 48, &text);
  EXPECT_EQ(r.stop_reason, "max_tokens");
  EXPECT_EQ(r.prompt_tokens, static_cast<int64_t>(golden.prompt.size()));
  EXPECT_EQ(r.tokens_out, 48);
  EXPECT_EQ(text, " " + texts.greedy);
}

// The README's demo output. A regression check of the README, not a
// reference: this text was captured from orcd itself (scripts/demo.sh, then
// the README's curl call) and is checked here through the demo's own
// conf/demo.yaml and the model file it serves (models/stories260K.gguf), so
// the README cannot silently go stale. Agreement with llama.cpp is what the
// golden tests establish (the test above, golden_logits_test.cc).
TEST(Stories260KDemo, OnceUponATimeWritesTheReadmeStory) {
  const std::filesystem::path source(ORCD_SOURCE_DIR);
  WorkerConfig config = LoadWorkerConfig(source / "conf/demo.yaml");
  config.model_path = (source / config.model_path).string();
  Served s = Serve(config);
  EXPECT_EQ(s.service->facts().context_length, 512) << "conf/demo.yaml's limits.context_length";
  std::string text;
  std::vector<std::string> pieces;
  const GenerationResult r = Greedy(*s.service, "Once upon a time", 64, &text, &pieces);
  ASSERT_EQ(r.tokens_out, 64);
  ASSERT_EQ(pieces.size(), 64u);
  EXPECT_EQ(Join(pieces, 40), kReadmeStory40);
  EXPECT_EQ(text, kReadmeStory64);
}

// No tokenizer.ggml.add_bos_token key: llama.cpp adds BOS anyway, because
// its SentencePiece ("llama") vocabulary defaults add_bos to true and only an
// explicit key overrides it (src/llama-vocab.cpp, llama_vocab::impl::load:
// `add_bos = true` for LLAMA_VOCAB_TYPE_SPM, then
// `if (ml.get_key(LLM_KV_TOKENIZER_ADD_BOS, temp, false)) add_bos = temp;`).
// orcd does as llama.cpp does: the golden's prompt tokens begin with BOS (1),
// and so do orcd's.
TEST(Stories260KQuirks, NoAddBosKeyStillAddsBosAsLlamaCppDoes) {
  const auto file = GgufFile::Open(FixtureModel(kStories));
  ASSERT_EQ(file->Find("tokenizer.ggml.add_bos_token"), nullptr) << "the quirk this test is about";
  const Golden golden = LoadGolden(kStories);
  ASSERT_EQ(golden.prompt.front(), 1) << "llama.cpp added BOS";

  const auto tokenizer = CreateGgufTokenizer(*file);
  EXPECT_EQ(tokenizer->kind(), "gguf-spm");
  EXPECT_TRUE(tokenizer->add_bos());
  EXPECT_EQ(tokenizer->special_ids().bos, 1);
  const std::vector<TokenId> ids = tokenizer->Encode("Once upon a time", true, false);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.front(), 1);

  // And the server counts it: the golden's prompt is its tokens, BOS included.
  Served s = ServeFixture(512);
  EXPECT_EQ(s.service->CountTokens(LoadGoldenTexts().prompt),
            static_cast<int64_t>(golden.prompt.size()));
}

// llama.context_length says 2048 although the model was trained with 512
// positions. llama.cpp takes the metadata at its word: n_ctx_train is 2048
// and an unset context (n_ctx 0) becomes it (src/llama-context.cpp:
// `cparams.n_ctx = params.n_ctx == 0 ? hparams.n_ctx_train : params.n_ctx`).
// orcd does the same with limits.context_length 0 (so /health reports 2048
// and positions past 512 run), and a configured context is what is allocated
// and enforced; conf/demo.yaml configures 512, the trained length.
TEST(Stories260KQuirks, MetadataContextIsTheDefaultAndAConfiguredOneIsHonoured) {
  {
    auto engine = engine::Engine::Load(FixtureModel(kStories), BuildPlugins(), {.threads = 2});
    EXPECT_EQ(engine->info().train_context_length, 2048);
    EXPECT_EQ(engine->info().context_length, 2048) << "as llama.cpp's n_ctx 0";
  }
  std::string long_prompt = "Once upon a time";
  for (int i = 0; i < 60; ++i) long_prompt += ", there was a little dog named Max";
  {
    Served s = ServeFixture(0);
    EXPECT_EQ(s.service->facts().context_length, 2048) << "what /health reports";
    EXPECT_EQ(s.service->max_prompt_tokens(), 2047);
    ASSERT_GT(s.service->CountTokens(long_prompt), 512);
    std::string text;
    const GenerationResult r = Greedy(*s.service, long_prompt, 4, &text);
    EXPECT_EQ(r.stop_reason, "max_tokens") << "positions past the trained 512 run, as in llama.cpp";
    EXPECT_EQ(r.tokens_out, 4);
  }
  {
    Served s = ServeFixture(512);
    EXPECT_EQ(s.service->facts().context_length, 512);
    EXPECT_EQ(s.service->max_prompt_tokens(), 511);
    std::string text;
    const GenerationResult r = Greedy(*s.service, long_prompt, 4, &text);
    EXPECT_EQ(r.stop_reason, "error");
    EXPECT_EQ(r.error_code, "INVALID_REQUEST") << "the prompt does not fit the configured 512";
    EXPECT_TRUE(text.empty());
  }
}

// tokenizer.ggml.seperator_token_id (sic) = 4294967295, and
// tokenizer.ggml.padding_token_id = 4294967295: -1 ("none") written as an
// unsigned 32-bit value by an old converter. The misspelling is llama.cpp's
// own key name (src/llama-arch.cpp, LLM_KV_TOKENIZER_SEP_ID); llama.cpp reads
// it, finds the id outside the vocabulary and keeps its default, none
// (src/llama-vocab.cpp: "bad special token: '%s' = %u, using default id %d";
// special_sep_id = LLAMA_TOKEN_NULL for SPM, and add_sep is false, so no
// separator is ever inserted). orcd has no separator token (only BERT-style
// vocabularies use one) and ignores the key; the padding id reads as none.
// Either way the file loads, and encoding adds BOS and nothing else.
TEST(Stories260KQuirks, LegacySeparatorKeyIsNoneAsLlamaCppReadsIt) {
  const auto file = GgufFile::Open(FixtureModel(kStories));
  ASSERT_EQ(file->GetU64("tokenizer.ggml.seperator_token_id"), 4294967295u)
      << "the quirk this test is about";
  ASSERT_EQ(file->GetU64("tokenizer.ggml.padding_token_id"), 4294967295u);

  const auto tokenizer = CreateGgufTokenizer(*file);
  const SpecialTokenIds& ids = tokenizer->special_ids();
  EXPECT_EQ(ids.pad, kNoToken);
  EXPECT_EQ(ids.bos, 1);
  EXPECT_EQ(ids.eos, 2);
  EXPECT_EQ(ids.unk, 0);
  EXPECT_FALSE(tokenizer->add_eos());
  const std::vector<TokenId> plain = tokenizer->Encode("Once upon a time", false, false);
  const std::vector<TokenId> special = tokenizer->Encode("Once upon a time", true, false);
  std::vector<TokenId> expected = {1};
  expected.insert(expected.end(), plain.begin(), plain.end());
  EXPECT_EQ(special, expected) << "BOS, the text, and no separator or EOS";
}

// No general.alignment: the GGUF default, 32 (ggml/src/gguf.cpp:
// GGUF_DEFAULT_ALIGNMENT when the key is absent), places the tensor data. No
// llama.rope.freq_base: llama.cpp's default theta, 10000
// (src/llama-model.cpp: rope_freq_base_train = 10000.0f unless
// LLM_KV_ROPE_FREQ_BASE is present). A wrong alignment would read every
// weight from the wrong bytes and a wrong theta would rotate every position
// differently; the golden logits would show both, these name the cause.
TEST(Stories260KQuirks, MissingAlignmentAndRopeBaseTakeLlamaCppsDefaults) {
  const auto file = GgufFile::Open(FixtureModel(kStories));
  ASSERT_EQ(file->Find("general.alignment"), nullptr) << "the quirk this test is about";
  ASSERT_EQ(file->Find("llama.rope.freq_base"), nullptr);
  EXPECT_EQ(file->alignment(), 32u);
  EXPECT_EQ(file->data_offset() % 32, 0u);

  auto engine = LoadFixtureEngine(kStories);
  int ropes = 0;
  for (engine::Phase phase : {engine::Phase::kPrefill, engine::Phase::kDecode}) {
    for (const engine::PlanInstruction& insn : engine->plan().phase(phase).instructions) {
      if (insn.opcode != ORCD_OP_ROPE) continue;
      ++ropes;
      const auto p = insn.ParamsAs<orcd_op_rope_params>();
      EXPECT_EQ(p.freq_base, 10000.0f);
      EXPECT_EQ(p.freq_scale, 1.0f);
      EXPECT_EQ(p.n_rot, 8u) << "llama.rope.dimension_count";
    }
  }
  EXPECT_EQ(ropes, 2 * 5 * 2) << "q and k of 5 layers, in both phases";
}

}  // namespace
}  // namespace orcd::testing
