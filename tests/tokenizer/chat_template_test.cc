// Chat templates: the exact strings of each format, and how the template is
// chosen from GGUF metadata.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/tokenizer/chat_template.h"
#include "host/tokenizer/tokenizer_factory.h"
#include "tokenizer_test_support.h"

namespace orcd::testing {
namespace {

const std::vector<ChatTurn> kConversation = {
    {"user", "Hi"},
    {"assistant", "Hello!"},
    {"user", "2+2?"},
};

std::filesystem::path Model(const std::string& file) { return FixturesDir() / "models" / file; }

TEST(ChatTemplate, ChatMlWithQwen2DefaultSystem) {
  const ChatTemplate t{ChatFormat::kChatMl, "You are a helpful assistant."};
  EXPECT_EQ(RenderChat(t, kConversation, true),
            "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
            "<|im_start|>user\nHi<|im_end|>\n"
            "<|im_start|>assistant\nHello!<|im_end|>\n"
            "<|im_start|>user\n2+2?<|im_end|>\n"
            "<|im_start|>assistant\n");
  const std::vector<ChatTurn> with_system = {{"system", "Be brief."}, {"user", "Hi"}};
  EXPECT_EQ(RenderChat(t, with_system, false),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n");
}

TEST(ChatTemplate, Phi3) {
  const std::vector<ChatTurn> turns = {
      {"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello!"}, {"user", "2+2?"}};
  EXPECT_EQ(RenderChat({ChatFormat::kRoleTags, ""}, turns, true),
            "<|system|>\nBe brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello!<|end|>\n"
            "<|user|>\n2+2?<|end|>\n<|assistant|>\n");
}

TEST(ChatTemplate, Harmony) {
  const std::vector<ChatTurn> turns = {
      {"developer", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello!"}, {"user", "2+2?"}};
  EXPECT_EQ(RenderChat({ChatFormat::kHarmony, ""}, turns, true),
            "<|start|>developer<|message|>Be brief.<|end|>"
            "<|start|>user<|message|>Hi<|end|>"
            "<|start|>assistant<|channel|>final<|message|>Hello!<|end|>"
            "<|start|>user<|message|>2+2?<|end|>"
            "<|start|>assistant");
}

// Gemma's format against Python-jinja2's rendering of Gemma 3's own template
// (fixtures/chat/expected), which starts with the BOS the C++ formats leave
// to the tokenizer.
TEST(ChatTemplate, TurnsMatchGemma3sTemplate) {
  const auto expected = [](const std::string& name) {
    std::ifstream in(FixturesDir() / "chat" / "expected" / name, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text.rfind("<bos>", 0), 0u) << name;
    return text.substr(5);
  };
  const ChatTemplate turns{ChatFormat::kTurns, ""};
  EXPECT_EQ(RenderChat(turns,
                       std::vector<ChatTurn>{{"user", "What is 2 + 2?"},
                                             {"assistant", "2 + 2 = 4."},
                                             {"user", "And times 3?"}},
                       true),
            expected("gemma-3-1b-it.multi_turn.txt"));
  EXPECT_EQ(RenderChat(turns,
                       std::vector<ChatTurn>{
                           {"system", "You are a concise assistant. Answer in one sentence."},
                           {"user", "What is the capital of France?"}},
                       true),
            expected("gemma-3-1b-it.system_user.txt"));
  EXPECT_EQ(ParseChatFormat("turns"), ChatFormat::kTurns);
}

TEST(ChatTemplate, UnsupportedRoleIsNamed) {
  const std::vector<ChatTurn> turns = {{"tool", "{}"}};
  try {
    RenderChat({ChatFormat::kRoleTags, ""}, turns, true);
    ADD_FAILURE() << "tool role accepted by phi3";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("'tool'"), std::string::npos) << e.what();
  }
}

// SelectChatTemplate with the family traits the build's plugins declare.
ChatTemplate Select(const std::filesystem::path& gguf_path) {
  const std::unique_ptr<GgufFile> gguf = GgufFile::Open(gguf_path);
  const std::optional<FamilyTraits> family = PluginFamilyTraits(gguf->architecture());
  return SelectChatTemplate(*gguf, family ? &*family : nullptr);
}

TEST(ChatTemplate, ChosenFromTemplateTextInTheGguf) {
  const ChatTemplate qwen2 = Select(VocabGguf("qwen2"));
  EXPECT_EQ(qwen2.format, ChatFormat::kChatMl);
  EXPECT_EQ(qwen2.default_system, "You are a helpful assistant.");
  EXPECT_EQ(Select(VocabGguf("phi-3")).format, ChatFormat::kRoleTags);
  // Unrecognised text falls back to the architecture.
  const std::optional<FamilyTraits> gpt_oss = PluginFamilyTraits("gpt-oss");
  ASSERT_TRUE(gpt_oss.has_value()) << "the gpt plugin declares gpt-oss's chat defaults";
  EXPECT_EQ(SelectChatTemplate(std::string_view("{{ messages }}"), "gpt-oss", &*gpt_oss).format,
            ChatFormat::kHarmony);
}

TEST(ChatTemplate, ChosenFromTheArchitectureWhenTheGgufHasNone) {
  EXPECT_EQ(Select(Model("qwen2-tiny.F16.gguf")).format, ChatFormat::kChatMl);
  EXPECT_EQ(Select(Model("phi3-tiny.Q4_K_M.gguf")).format, ChatFormat::kRoleTags);
  EXPECT_EQ(Select(Model("gptoss-tiny.F16.gguf")).format, ChatFormat::kHarmony);
  EXPECT_EQ(Select(VocabGguf("gpt-oss")).format, ChatFormat::kHarmony);
  EXPECT_EQ(Select(Model("qwen3-tiny.F16.gguf")).format, ChatFormat::kChatMl);
  EXPECT_EQ(Select(Model("qwen3moe-tiny.Q4_K_M.gguf")).format, ChatFormat::kChatMl);
  EXPECT_EQ(Select(Model("gemma2-tiny.F16.gguf")).format, ChatFormat::kTurns);
  EXPECT_EQ(Select(Model("gemma3-tiny.Q4_K_M.gguf")).format, ChatFormat::kTurns);
  try {
    Select(Model("gpt2-tiny.F16.gguf"));
    ADD_FAILURE() << "gpt2 has no chat template";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("'gpt2'"), std::string::npos) << e.what();
  }
}

TEST(ChatTemplate, RenderedPromptEncodesToControlTokens) {
  const std::filesystem::path model = Model("qwen2-tiny.F16.gguf");
  const std::unique_ptr<Tokenizer> tokenizer = LoadModelTokenizer(model);
  const std::string prompt = RenderChat(Select(model), {{{"user", "Hi"}}}, true);
  const std::vector<TokenId> ids = tokenizer->Encode(prompt, true, true);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 4097), 3) << FormatIds(ids);  // <|im_start|>
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 4098), 2) << FormatIds(ids);  // <|im_end|>
  EXPECT_EQ(ids.front(), 4097);                                              // no BOS for qwen2
}

}  // namespace
}  // namespace orcd::testing
