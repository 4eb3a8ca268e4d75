// orcd-tokenize --render-chat: the exact prompt on stdout (no added newline),
// template errors on stderr with exit 1, from a template file or a model's
// own tokenizer.chat_template and special tokens.
#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "host/chat/jinja/json_dump.h"
#include "host/chat/jinja/json_value.h"
#include "host/gguf/gguf_writer.h"
#include "tests/unit/test_files.h"

namespace orcd::testing {
namespace {

namespace fs = std::filesystem;

fs::path ChatDir() { return fs::path(ORCD_FIXTURES_DIR) / "chat"; }

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteText(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// cases.json's case `name` with the template's bos/eos, as CASE.json text.
std::string CaseJson(const std::string& template_name, const std::string& name) {
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
  const auto root =
      parser.parse(ReadText(ChatDir() / "cases.json")).extract<Poco::JSON::Object::Ptr>();
  const jinja::Value all = jinja::ValueFromJson(root);
  const jinja::Dict& meta = all.AsDict().Find("templates")->AsDict().Find(template_name)->AsDict();
  for (const jinja::Value& c : all.AsDict().Find("cases")->AsList()) {
    if (c.AsDict().Find("name")->AsString() != name) continue;
    jinja::Dict conversation = c.AsDict();
    conversation.Set("bos_token", *meta.Find("bos_token"));
    conversation.Set("eos_token", *meta.Find("eos_token"));
    return jinja::JsonDump(jinja::Value::FromDict(std::move(conversation)), {});
  }
  ADD_FAILURE() << "no case " << name;
  return "{}";
}

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

CliResult RenderChat(const TempDir& dir, const std::string& source_args,
                     const std::string& case_json, const std::string& extra = "") {
  WriteText(dir / "case.json", case_json);
  const fs::path out = dir / "stdout.txt";
  const fs::path err = dir / "stderr.txt";
  // In a subshell: RunCommand appends its own 2>&1.
  const CommandResult r =
      RunCommand("(" + std::string(ORCD_BIN_DIR) + "/orcd-tokenize " + source_args +
                 " --conversation " + (dir / "case.json").string() + " --render-chat " + extra +
                 " >" + out.string() + " 2>" + err.string() + ")");
  return {r.exit_code, ReadText(out), ReadText(err)};
}

std::string Template(const std::string& name) {
  return "--template " + (ChatDir() / "templates" / (name + ".jinja")).string();
}

std::string Expected(const std::string& key) {
  return ReadText(ChatDir() / "expected" / (key + ".txt"));
}

TEST(RenderChatCli, PrintsTheRenderedPromptExactly) {
  TempDir dir;
  for (const auto& [name, c] :
       {std::pair<std::string, std::string>{"qwen2.5-7b-instruct", "tools_call"},
        {"llama-3.1-8b-instruct", "tools_call_string_args"},
        {"deepseek-r1-distill-qwen-32b", "unicode_content"},
        {"phi-3.5-mini-instruct", "user_only_nogen"}}) {
    SCOPED_TRACE(name + "." + c);
    const CliResult r = RenderChat(dir, Template(name), CaseJson(name, c));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, Expected(name + "." + c));  // byte exact, no newline added
    EXPECT_EQ(r.err, "");
  }
}

TEST(RenderChatCli, DatePinsStrftimeNow) {
  TempDir dir;
  const CliResult r = RenderChat(dir, Template("gpt-oss-120b"),
                                 CaseJson("gpt-oss-120b", "extra_kwargs"), "--date 2024-07-26");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Expected("gpt-oss-120b.extra_kwargs"));
  const CliResult other =
      RenderChat(dir, Template("llama-3.2-3b-instruct"),
                 CaseJson("llama-3.2-3b-instruct", "user_only_gen"), "--date 2025-01-02");
  EXPECT_NE(other.out.find("Today Date: 02 Jan 2025"), std::string::npos) << other.out;
}

TEST(RenderChatCli, TemplateErrorsGoToStderrWithExit1) {
  TempDir dir;
  CliResult r =
      RenderChat(dir, Template("gemma-2-2b-it"), CaseJson("gemma-2-2b-it", "system_user"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "orcd-tokenize: System role not supported\n");

  r = RenderChat(dir, Template("qwen2.5-7b-instruct"),
                 CaseJson("qwen2.5-7b-instruct", "empty_messages"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("UndefinedError"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 15"), std::string::npos) << r.err;

  WriteText(dir / "bad.jinja", "ok\n{% if messages %}\n{{ messages | nosuch }}\n{% endif %}");
  r = RenderChat(dir, "--template " + (dir / "bad.jinja").string(), R"({"messages": []})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("line 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nosuch"), std::string::npos) << r.err;
}

TEST(RenderChatCli, ModelTemplateAndSpecialTokens) {
  TempDir dir;
  GgufWriter w;
  w.SetString("general.architecture", "testarch");
  w.SetString("tokenizer.chat_template",
              ReadText(ChatDir() / "templates" / "llama-3.1-8b-instruct.jinja"));
  w.SetStringArray("tokenizer.ggml.tokens", {"a", "<|begin_of_text|>", "<|eot_id|>", "b"});
  w.SetU32("tokenizer.ggml.bos_token_id", 1);
  w.SetU32("tokenizer.ggml.eos_token_id", 2);
  w.WriteFile(dir / "model.gguf");
  std::string conversation = CaseJson("llama-3.1-8b-instruct", "system_user");
  // Without bos_token / eos_token in the conversation, the model's are used.
  conversation =
      R"({"messages": )" +
      jinja::JsonDump(*jinja::ParseJsonValue(conversation).AsDict().Find("messages"), {}) +
      R"(, "add_generation_prompt": true})";
  const CliResult r = RenderChat(dir, "--model " + (dir / "model.gguf").string(), conversation);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Expected("llama-3.1-8b-instruct.system_user"));

  GgufWriter bare;
  bare.SetString("general.architecture", "testarch");
  bare.WriteFile(dir / "bare.gguf");
  const CliResult none = RenderChat(dir, "--model " + (dir / "bare.gguf").string(), conversation);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no tokenizer.chat_template"), std::string::npos) << none.err;
}

TEST(RenderChatCli, Usage) {
  TempDir dir;
  WriteText(dir / "t.jinja", "x");
  const std::string cli = std::string(ORCD_BIN_DIR) + "/orcd-tokenize ";
  const std::string t = " --template " + (dir / "t.jinja").string();
  EXPECT_EQ(RunCommand(cli + t + " --render-chat").exit_code, 2);          // no conversation
  EXPECT_EQ(RunCommand(cli + t + " --conversation x.json").exit_code, 2);  // no --render-chat
  EXPECT_EQ(RunCommand(cli + t + " --model m.gguf --conversation x.json --render-chat").exit_code,
            2);
  EXPECT_EQ(RenderChat(dir, t, "not json").exit_code, 1);
  EXPECT_EQ(RenderChat(dir, t, R"({"messages": 3})").exit_code, 1);
}

}  // namespace
}  // namespace orcd::testing
