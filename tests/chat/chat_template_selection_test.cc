// Where the host's chat prompt comes from: chat.template_file, else the
// model's own tokenizer.chat_template (rendered by the Jinja engine exactly as
// transformers renders it), else the architecture plugin's default format.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "host/chat/jinja/jinja_template.h"
#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/gguf/gguf_writer.h"
#include "host/tokenizer/chat_template.h"
#include "host/tokenizer/family_traits.h"
#include "host/tokenizer/tokenizer_factory.h"
#include "tests/unit/test_files.h"

namespace orcd::testing {
namespace {

namespace fs = std::filesystem;

fs::path Fixtures() { return fs::path(ORCD_FIXTURES_DIR); }

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::vector<ChatTurn> kSystemUser = {
    {"system", "You are a concise assistant. Answer in one sentence."},
    {"user", "What is the capital of France?"}};

// A GGUF carrying the llama-3.1 fixture template and its special tokens.
fs::path WriteLlamaTemplateModel(const TempDir& dir, const std::string& template_text) {
  GgufWriter w;
  w.SetString("general.architecture", "testarch");
  w.SetString("tokenizer.chat_template", template_text);
  w.SetStringArray("tokenizer.ggml.tokens", {"a", "<|begin_of_text|>", "<|eot_id|>"});
  w.SetU32("tokenizer.ggml.bos_token_id", 1);
  w.SetU32("tokenizer.ggml.eos_token_id", 2);
  w.WriteFile(dir / "model.gguf");
  return dir / "model.gguf";
}

const FamilyTraits kChatMlFamily{ChatFormat::kChatMl, "", false};

TEST(ChatTemplateSelection, TheModelsJinjaTemplateComesFirst) {
  TempDir dir;
  const fs::path path = WriteLlamaTemplateModel(
      dir, ReadText(Fixtures() / "chat" / "templates" / "llama-3.1-8b-instruct.jinja"));
  const std::unique_ptr<GgufFile> gguf = GgufFile::Open(path);
  const ChatTemplate t = SelectChatTemplate(*gguf, &kChatMlFamily);
  ASSERT_NE(t.jinja, nullptr);
  EXPECT_EQ(t.origin, "tokenizer.chat_template");
  EXPECT_EQ(t.bos_token, "<|begin_of_text|>");
  EXPECT_EQ(t.eos_token, "<|eot_id|>");
  // Byte for byte what jinja2 renders for this conversation (fixtures/chat).
  EXPECT_EQ(RenderChat(t, kSystemUser, true),
            ReadText(Fixtures() / "chat" / "expected" / "llama-3.1-8b-instruct.system_user.txt"));
}

TEST(ChatTemplateSelection, ConfiguredTemplateFileReplacesTheModels) {
  TempDir dir;
  const fs::path path = WriteLlamaTemplateModel(dir, "model's: {{ messages|length }}");
  std::ofstream(dir / "mine.jinja")
      << "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}"
      << "{% if add_generation_prompt %}>{% endif %}\n";
  const std::unique_ptr<GgufFile> gguf = GgufFile::Open(path);
  const ChatTemplate t = SelectChatTemplate(*gguf, nullptr, {.template_file = dir / "mine.jinja"});
  EXPECT_EQ(t.origin, "chat.template_file");
  EXPECT_EQ(RenderChat(t, {{{"user", "Hi"}}}, true), "[user]Hi>");
}

TEST(ChatTemplateSelection, ABadTemplateFileIsAStartUpErrorNamingIt) {
  TempDir dir;
  const fs::path path = WriteLlamaTemplateModel(dir, "{{ 1 }}");
  const std::unique_ptr<GgufFile> gguf = GgufFile::Open(path);
  std::ofstream(dir / "bad.jinja") << "ok\n{% for m in messages %}\nno end";
  for (const fs::path& file : {dir / "bad.jinja", dir / "missing.jinja"}) {
    try {
      SelectChatTemplate(*gguf, nullptr, {.template_file = file});
      ADD_FAILURE() << "accepted " << file;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
      EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    }
  }
  std::ofstream(dir / "unsupported.jinja") << "\n{% include 'x.jinja' %}";
  try {
    SelectChatTemplate(*gguf, nullptr, {.template_file = dir / "unsupported.jinja"});
    ADD_FAILURE() << "accepted an include";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << "not 'no template at all': " << e.what();
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

TEST(ChatTemplateSelection, AnUnusableModelTemplateFallsBackToThePluginDefault) {
  const ChatTemplate t = SelectChatTemplate(std::string_view("{% extends 'base.jinja' %}"),
                                            "testarch", &kChatMlFamily);
  EXPECT_EQ(t.jinja, nullptr);
  EXPECT_EQ(t.origin, "plugin default");
  EXPECT_EQ(RenderChat(t, {{{"user", "Hi"}}}, true),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  try {
    SelectChatTemplate(std::nullopt, "testarch", nullptr);
    ADD_FAILURE() << "no template and no default";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
}

TEST(ChatTemplateSelection, RenderErrorsReachTheCaller) {
  const ChatTemplate t = SelectChatTemplate(
      std::string_view("{% if messages[0].role == 'system' %}{{ raise_exception('System role not "
                       "supported') }}{% endif %}ok"),
      "testarch", nullptr);
  EXPECT_EQ(RenderChat(t, {{{"user", "Hi"}}}, true), "ok");
  try {
    RenderChat(t, kSystemUser, true);
    ADD_FAILURE() << "rendered";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_STREQ(e.what(), "System role not supported");
  }
}

TEST(ChatTemplateSelection, RealVocabTemplatesRenderAsJinja2Does) {
  const std::vector<ChatTurn> turns = {
      {"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello!"}, {"user", "2+2?"}};
  // Expected texts rendered by Python jinja2 from the same GGUF templates.
  const std::unique_ptr<GgufFile> qwen2 =
      GgufFile::Open(Fixtures() / "vocab" / "ggml-vocab-qwen2.gguf");
  EXPECT_EQ(RenderChat(SelectChatTemplate(*qwen2, nullptr), turns, true),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
            "<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\n2+2?<|im_end|>\n"
            "<|im_start|>assistant\n");
  const fs::path phi3_path = Fixtures() / "vocab" / "ggml-vocab-phi-3.gguf";
  const std::unique_ptr<GgufFile> phi3 = GgufFile::Open(phi3_path);
  const ChatTemplate phi3_template = SelectChatTemplate(*phi3, nullptr);
  const std::string prompt = RenderChat(phi3_template, turns, true);
  EXPECT_EQ(prompt,
            "<s><|user|>\nHi<|end|>\n<|assistant|>\nHello!<|end|>\n<|user|>\n2+2?<|end|>\n"
            "<|assistant|>\n");
  // The template writes BOS and the vocabulary would add one too: a Jinja
  // prompt is encoded without special tokens (as transformers does), so the
  // model sees one BOS, the template's.
  const std::unique_ptr<Tokenizer> tokenizer = CreateGgufTokenizer(*phi3);
  ASSERT_TRUE(tokenizer->add_bos());
  EXPECT_FALSE(phi3_template.add_special_tokens());
  const std::vector<TokenId> ids =
      tokenizer->Encode(prompt, phi3_template.add_special_tokens(), /*parse_special=*/true);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), tokenizer->special_ids().bos), 1);
  EXPECT_EQ(ids.front(), tokenizer->special_ids().bos);
  // The C++ formats write no BOS: the vocabulary's rule adds it.
  EXPECT_TRUE(ChatTemplate{}.add_special_tokens());
}

}  // namespace
}  // namespace orcd::testing
