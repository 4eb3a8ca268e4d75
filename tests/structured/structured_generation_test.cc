// Structured output end to end on a random-weight fixture model (qwen2-tiny,
// the generation service on the CPU): outputs sampled at temperature 1 under
// a schema all end by themselves (the grammar's sentence is whole) and are
// valid instances of the schema by an independent validator (python3's
// jsonschema, Debian's python3-jsonschema), not by the grammar itself.
// Random weights pick nearly uniformly among the allowed tokens, so the
// schemas bound their strings and arrays (else a string would rarely close
// within max_tokens).
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include "host/chat/output/chat_output_format.h"
#include "host/generation/generation_service.h"
#include "host/generation/token_generator.h"
#include "host/plugins/host_services.h"
#include "host/structured/json_answer_grammar.h"
#include "host/structured/json_schema_grammar.h"
#include "host/structured/token_trie.h"
#include "host/tokenizer/tokenizer_factory.h"
#include "tests/unit/test_files.h"

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

struct Loaded {
  std::unique_ptr<DeviceContext> device;
  std::unique_ptr<InferenceService> service;
};

Loaded Load(const std::string& model = "qwen2-tiny.Q4_K_M.gguf") {
  GenerationOptions config;
  config.model_path = std::string(ORCD_FIXTURES_DIR) + "/models/" + model;
  config.device = "cpu";
  config.threads = 2;
  config.context_length = 512;
  Loaded l;
  l.device = CreateDeviceContext("cpu", 0, 2);
  l.service = CreateGenerationService(config, Plugins(), *l.device, [](int) {});
  return l;
}

class Collect final : public GenerationObserver {
 public:
  bool OnToken(int64_t, const std::string& t) override {
    text += t;
    return true;
  }
  bool Cancelled() override { return false; }
  std::string text;
};

std::shared_ptr<const structured::Grammar> Compile(const std::string& schema) {
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
  return structured::JsonSchemaGrammar(parser.parse(schema));
}

GenerationResult Generate(InferenceService& service, const std::string& schema, uint64_t seed,
                          std::string& text) {
  GenerationInput in;
  in.prompt = "Write the record as JSON:";
  in.max_tokens = 400;
  in.sampling.temperature = 1.0;
  in.sampling.seed = seed;
  in.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  in.grammar = Compile(schema);
  Collect out;
  const GenerationResult r = service.Generate(in, out);
  text = out.text;
  return r;
}

const std::vector<std::string>& Schemas() {
  static const std::vector<std::string> schemas = {
      R"({"type":"object","properties":{"name":{"type":"string","maxLength":12},
          "age":{"type":"integer","minimum":0,"maximum":120},
          "tags":{"type":"array","items":{"enum":["red","green","blue"]},"maxItems":3},
          "active":{"type":"boolean"},"note":{"type":["string","null"],"maxLength":5}},
          "required":["name","age","tags"],"additionalProperties":false})",
      R"({"$defs":{"node":{"type":"object","properties":{"id":{"type":"integer","minimum":1,
          "maximum":99},"kids":{"type":"array","items":{"$ref":"#/$defs/node"},"maxItems":2}},
          "required":["id"],"additionalProperties":false}},"$ref":"#/$defs/node"})",
      R"({"type":"array","prefixItems":[{"type":"string","format":"date"},
          {"type":"string","format":"uuid"},{"const":"fixed"}],"items":false,"minItems":3})",
      R"({"anyOf":[{"type":"integer","minimum":-5,"maximum":5},{"type":"boolean"},
          {"type":"object","properties":{"k":{"type":"null"}},"required":["k"],
          "additionalProperties":false}]})",
  };
  return schemas;
}

// Three vocabularies: qwen2's and gpt-oss's byte-level BPE, phi-3's
// SentencePiece with byte fallback.
class StructuredGeneration : public ::testing::TestWithParam<const char*> {};

TEST_P(StructuredGeneration, SampledOutputsEndByThemselvesAndValidateAgainstTheirSchema) {
  Loaded l = Load(GetParam());
  constexpr int kPerSchema = 20;
  testing::TempDir dir;
  std::ofstream cases(dir / "cases.jsonl");
  std::set<std::string> distinct;
  for (size_t s = 0; s < Schemas().size(); ++s) {
    for (int i = 0; i < kPerSchema; ++i) {
      std::string text;
      const GenerationResult r = Generate(*l.service, Schemas()[s], 1000 * s + i, text);
      ASSERT_EQ(r.stop_reason, "eos")
          << "schema " << s << ", seed " << i << ": " << text << " " << r.error_message;
      distinct.insert(text);
      // One line per output: its schema's index and the text as a JSON string.
      std::string quoted = "\"";
      for (const char c : text) {
        if (c == '"' || c == '\\') quoted += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          quoted += buf;
          continue;
        }
        quoted += c;
      }
      cases << "[" << s << "," << quoted << "\"]\n";
    }
  }
  cases.close();
  std::ofstream schemas(dir / "schemas.json");
  schemas << "[";
  for (size_t s = 0; s < Schemas().size(); ++s) schemas << (s ? "," : "") << Schemas()[s];
  schemas << "]";
  schemas.close();
  const std::string check = R"(
import json, sys, jsonschema
schemas = json.load(open(sys.argv[1]))
bad = 0
for line in open(sys.argv[2]):
    index, text = json.loads(line)
    try:
        jsonschema.Draft202012Validator(schemas[index]).validate(json.loads(text))
    except Exception as e:
        bad += 1
        print("schema", index, repr(text), type(e).__name__, str(e).splitlines()[0])
sys.exit(1 if bad else 0)
)";
  std::ofstream(dir / "check.py") << check;
  const testing::CommandResult result =
      testing::RunCommand("python3 " + (dir / "check.py").string() + " " +
                          (dir / "schemas.json").string() + " " + (dir / "cases.jsonl").string());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  // The draws exercised the schemas: not one output repeated.
  EXPECT_GT(distinct.size(), Schemas().size() * kPerSchema / 2);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, StructuredGeneration,
                         ::testing::Values("qwen2-tiny.Q4_K_M.gguf", "phi3-tiny.Q4_K_M.gguf",
                                           "gptoss-tiny.MXFP4_MOE.gguf"),
                         [](const auto& info) {
                           std::string name = info.param;
                           return name.substr(0, name.find('-'));
                         });

TEST(StructuredGenerationSeeds, ASeededRequestRepeatsItsOutput) {
  Loaded l = Load();
  std::string first, second;
  Generate(*l.service, Schemas()[0], 77, first);
  Generate(*l.service, Schemas()[0], 77, second);
  EXPECT_EQ(first, second);
  EXPECT_EQ(first.front(), '{');
}

// response_format json on harmony (gpt-oss's vocabulary, the generation
// loop, the harmony parser): a model that reasons first keeps its analysis
// message, free, and its final message is the schema's instance, ended by
// the grammar; a model that would answer in prose is held to the schema.
// (One that drifts into the analysis channel and never ends it runs to
// max_tokens: the analysis is free by design.) The model
// prefers a scripted sequence of tokens, then has no preference (greedy
// picks the lowest allowed id). `on_device`: it samples where its logits
// are, as the CUDA backend does (greedy over the ids the draw's mask
// allows), and never hands a row to the host.
class PreferringModel final : public LogitSource {
 public:
  PreferringModel(std::vector<int32_t> script, int64_t vocab, bool on_device = false)
      : script_(std::move(script)), logits_(static_cast<size_t>(vocab)), on_device_(on_device) {}
  void Reset() override { position_ = emitted_ = 0; }
  std::span<const float> Prefill(std::span<const int32_t> tokens) override {
    host_rows += on_device_ ? 1 : 0;
    position_ += static_cast<int64_t>(tokens.size());
    return Next();
  }
  std::span<const float> Decode(int32_t) override {
    host_rows += on_device_ ? 1 : 0;
    ++position_;
    return Next();
  }
  bool SamplesOnDevice() const override { return on_device_; }
  int32_t PrefillSample(std::span<const int32_t> tokens, const SampleDraw& draw) override {
    position_ += static_cast<int64_t>(tokens.size());
    return MaskedArgmax(draw);
  }
  int32_t DecodeSample(int32_t, const SampleDraw& draw) override {
    ++position_;
    return MaskedArgmax(draw);
  }
  int64_t position() const override { return position_; }
  int64_t context_length() const override { return 4096; }

  int host_rows = 0;  // rows handed to the host while sampling on the device
  int draws = 0;
  int masked_draws = 0;  // draws that came with the grammar's bits

 private:
  std::span<const float> Next() {
    std::fill(logits_.begin(), logits_.end(), 0.0f);
    const auto k = static_cast<size_t>(emitted_++);
    if (k < script_.size()) logits_[static_cast<size_t>(script_[k])] = 10.0f;
    return logits_;
  }
  int32_t MaskedArgmax(const SampleDraw& draw) {
    const std::span<const float> row = Next();
    ++draws;
    masked_draws += draw.allowed.empty() ? 0 : 1;
    int32_t best = -1;
    for (size_t i = 0; i < row.size(); ++i) {
      const bool allowed = draw.allowed.empty() || ((draw.allowed[i / 64] >> (i % 64)) & 1u);
      if (allowed && (best < 0 || row[i] > row[static_cast<size_t>(best)]))
        best = static_cast<int32_t>(i);
    }
    return best;
  }
  std::vector<int32_t> script_;
  std::vector<float> logits_;
  bool on_device_;
  int64_t position_ = 0, emitted_ = 0;
};

// The reply a model that prefers `script`'s tokens writes under `grammar`
// (greedy), read by `format`'s output parser; the generation must end by
// itself (the grammar's sentence whole).
ChatOutputCollector ScriptedReply(const Tokenizer& tokenizer, const structured::TokenTrie& trie,
                                  const std::string& script,
                                  std::shared_ptr<const structured::Grammar> grammar,
                                  ChatOutputFormat format, bool tools_enabled,
                                  bool on_device = false) {
  PreferringModel model(tokenizer.Encode(script, false, /*parse_special=*/true),
                        tokenizer.vocab_size(), on_device);
  GenerationInput input;
  input.max_tokens = 200;
  input.sampling.temperature = 0.0;
  input.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  input.grammar = std::move(grammar);
  for (const std::string_view t : ChatOutputMarkupTokens(format))
    input.render_special.emplace_back(t);
  GeneratorOptions options;
  options.token_trie = &trie;
  Collect out;
  const GenerationResult r = GenerateTokens(
      model, tokenizer, tokenizer.Encode("Pick.", false, false), input, out, options);
  EXPECT_EQ(r.stop_reason, "eos") << out.text;
  if (on_device) {
    EXPECT_EQ(model.host_rows, 0) << "a logits row went to the host";
    EXPECT_EQ(model.masked_draws, model.draws) << "a draw without the grammar's bits";
    EXPECT_GE(model.draws, r.tokens_out);
  }
  ChatOutputCollector reply;
  auto reader = MakeChatOutputParser(format, tools_enabled);
  reader->Push(out.text, reply);
  reader->Finish(reply);
  return reply;
}

TEST(StructuredHarmony, TheAnalysisStaysFreeAndTheFinalMessageIsTheSchemasInstance) {
  const std::unique_ptr<Tokenizer> tokenizer =
      LoadTokenizer(std::string(ORCD_FIXTURES_DIR) + "/vocab/ggml-vocab-gpt-oss.gguf");
  const structured::TokenTrie trie(*tokenizer);
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
  const Poco::Dynamic::Var schema = parser.parse(
      R"({"type":"object","properties":{"color":{"enum":["red","blue"]},"n":{"type":"integer",
          "minimum":1,"maximum":9}},"required":["color","n"],"additionalProperties":false})");
  const auto markup = JsonAnswerMarkupOf(ChatOutputFormat::kHarmony);
  ASSERT_TRUE(markup.has_value());
  const auto grammar = structured::JsonAnswerGrammar(*markup, schema);
  struct Case {
    const char* name;
    std::string script;  // what the model would write
    std::string reasoning;
  };
  const std::vector<Case> cases = {
      {"reasons, then answers",
       "<|channel|>analysis<|message|>Blue suits; n is 3.<|end|><|start|>assistant"
       "<|channel|>final<|message|>{\"color\":\"blue\",\"n\":3}<|return|>",
       "Blue suits; n is 3."},
      {"answers at once", "<|channel|>final<|message|>{\"color\":\"red\",\"n\":7}<|return|>", ""},
      {"wants prose", "<|channel|>final<|message|>Blue, and three.<|return|>", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const ChatOutputCollector reply =
        ScriptedReply(*tokenizer, trie, c.script, grammar, ChatOutputFormat::kHarmony, false);
    // Sampled where the logits are (the device), with the grammar's bits:
    // the same reply.
    const ChatOutputCollector on_device =
        ScriptedReply(*tokenizer, trie, c.script, grammar, ChatOutputFormat::kHarmony, false, true);
    EXPECT_EQ(on_device.content, reply.content);
    EXPECT_EQ(on_device.reasoning, reply.reasoning);
    EXPECT_EQ(reply.reasoning, c.reasoning) << reply.content;
    const auto answer =
        Poco::JSON::Parser().parse(reply.content).extract<Poco::JSON::Object::Ptr>();
    const std::string color = answer->getValue<std::string>("color");
    EXPECT_TRUE(color == "red" || color == "blue") << reply.content;
    const int n = answer->getValue<int>("n");
    EXPECT_TRUE(n >= 1 && n <= 9) << reply.content;
    if (!c.reasoning.empty()) {
      EXPECT_EQ(reply.content, R"({"color":"blue","n":3})");
    }
  }
}

// response_format json with tools offered as "auto": the reply is the JSON
// answer or one call, in the format's own text. A scripted model that calls,
// that answers, and that would write prose (held to one of the two), on
// Qwen's Hermes tags and on harmony (a call after the analysis message),
// each reply read by the format's own output parser.
TEST(StructuredToolsOrJson, TheReplyIsACallOrTheSchemasInstance) {
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
  const Poco::Dynamic::Var schema = parser.parse(
      R"({"type":"object","properties":{"color":{"enum":["red","blue"]},"n":{"type":"integer",
          "minimum":1,"maximum":9}},"required":["color","n"],"additionalProperties":false})");
  std::vector<structured::ToolSchema> tools(2);
  tools[0].name = "get_weather";
  tools[0].parameters = parser.parse(
      R"({"type":"object","properties":{"city":{"enum":["Paris","Oslo"]}},"required":["city"]})");
  tools[1].name = "get_time";  // bounded too: greedy over ties takes the lowest ids
  tools[1].parameters = parser.parse(
      R"({"type":"object","properties":{"zone":{"enum":["UTC","CET"]}},"additionalProperties":false})");
  struct Case {
    const char* name;
    std::string script;  // what the model would write
    std::string call;    // the function it calls ("" for the JSON answer)
    std::string reasoning;
  };
  struct Format {
    ChatOutputFormat format;
    const char* vocab;
    std::vector<Case> cases;
  };
  const std::vector<Format> formats = {
      {ChatOutputFormat::kToolCallTags,
       "ggml-vocab-qwen2.gguf",
       {{"calls",
         "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}\n</tool_call>",
         "get_weather", ""},
        {"answers", "{\"color\":\"blue\",\"n\":3}", "", ""},
        {"wants prose", "Blue, and three.", "?", ""}}},
      {ChatOutputFormat::kHarmony,
       "ggml-vocab-gpt-oss.gguf",
       {{"reasons, then calls",
         "<|channel|>analysis<|message|>Weather first.<|end|><|start|>assistant<|channel|>"
         "commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Oslo\"}"
         "<|call|>",
         "get_weather", "Weather first."},
        {"answers at once", "<|channel|>final<|message|>{\"color\":\"red\",\"n\":7}<|return|>", "",
         ""}}},
  };
  for (const Format& f : formats) {
    SCOPED_TRACE(ChatOutputFormatName(f.format));
    const std::unique_ptr<Tokenizer> tokenizer =
        LoadTokenizer(std::string(ORCD_FIXTURES_DIR) + "/vocab/" + f.vocab);
    const structured::TokenTrie trie(*tokenizer);
    const auto call = ToolCallMarkupOf(f.format);
    ASSERT_TRUE(call.has_value());
    const auto answer = JsonAnswerMarkupOf(f.format);
    const auto grammar =
        structured::JsonAnswerOrToolCallGrammar(answer ? &*answer : nullptr, schema, *call, tools);
    for (const Case& c : f.cases) {
      SCOPED_TRACE(c.name);
      const ChatOutputCollector reply =
          ScriptedReply(*tokenizer, trie, c.script, grammar, f.format, /*tools_enabled=*/true);
      EXPECT_EQ(reply.reasoning, c.reasoning) << reply.content;
      const bool called = !reply.tool_calls.empty();
      if (c.call != "?") {
        EXPECT_EQ(called, !c.call.empty()) << reply.content;
      }
      if (called) {
        ASSERT_EQ(reply.tool_calls.size(), 1u);
        EXPECT_TRUE(reply.content.empty()) << reply.content;
        if (!c.call.empty() && c.call != "?") {
          EXPECT_EQ(reply.tool_calls[0].name, c.call);
        }
        const auto args = Poco::JSON::Parser()
                              .parse(reply.tool_calls[0].arguments)
                              .extract<Poco::JSON::Object::Ptr>();
        if (reply.tool_calls[0].name == "get_weather") {
          const std::string city = args->getValue<std::string>("city");
          EXPECT_TRUE(city == "Paris" || city == "Oslo") << reply.tool_calls[0].arguments;
        } else {
          EXPECT_EQ(reply.tool_calls[0].name, "get_time");
        }
        continue;
      }
      const auto json =
          Poco::JSON::Parser().parse(reply.content).extract<Poco::JSON::Object::Ptr>();
      const std::string color = json->getValue<std::string>("color");
      EXPECT_TRUE(color == "red" || color == "blue") << reply.content;
      const int n = json->getValue<int>("n");
      EXPECT_TRUE(n >= 1 && n <= 9) << reply.content;
    }
  }
}

}  // namespace
}  // namespace orcd
