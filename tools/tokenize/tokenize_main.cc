// orcd-tokenize: a model's tokenizer from the command line.
//   orcd-tokenize --model M.gguf --text "Hello"      -> [9906]
//   orcd-tokenize --model M.gguf --ids 9906,1917     -> Hello world
//   orcd-tokenize --tokenizer-json tokenizer.json --text "Hello"
//   orcd-tokenize --model M.gguf --info              -> kind, vocab size, special ids
//   orcd-tokenize --template T.jinja --conversation CASE.json --render-chat
//                                                   -> the prompt the template renders
//   orcd-tokenize --model M.gguf --conversation CASE.json --render-chat
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "host/chat/chat_variables.h"
#include "host/chat/jinja/jinja_template.h"
#include "host/chat/jinja/json_value.h"
#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/plugins/host_services.h"
#include "host/plugins/plugin_registry.h"
#include "host/plugins/plugin_search_path.h"
#include "host/tokenizer/chat_template.h"
#include "host/tokenizer/hf_json_tokenizer.h"
#include "host/tokenizer/streaming_detokenizer.h"
#include "host/tokenizer/tokenizer_factory.h"

namespace {

struct Options {
  std::optional<std::string> model;
  std::optional<std::string> tokenizer_json;
  std::optional<std::string> text;
  std::optional<std::string> ids;
  bool info = false;
  bool add_special = true;
  bool parse_special = false;
  // --render-chat
  std::optional<std::string> template_file;
  std::optional<std::string> conversation;
  std::optional<std::string> date;
  bool render_chat = false;
};

void Usage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: orcd-tokenize (--model M.gguf [--tokenizer-json F] | --tokenizer-json F)\n"
      "                     (--text T | --text-file P | --ids 1,2,3 | --info)\n"
      "                     [--no-special] [--parse-special]\n"
      "  --text T, --text-file P  print the token ids of T (of file P) as a JSON array\n"
      "  --ids LIST               print the text of comma-separated token ids\n"
      "  --info                   print the tokenizer kind, vocab size and special ids (JSON)\n"
      "  --no-special             encode: no BOS/EOS; decode: skip control tokens\n"
      "  --parse-special          encode: control-token text (e.g. <|im_start|>) is one token\n"
      "  --tokenizer-json F       use a HF tokenizer.json (hf-json) instead of the GGUF "
      "vocabulary\n"
      "       orcd-tokenize (--template T.jinja | --model M.gguf) --conversation CASE.json\n"
      "                     --render-chat [--date YYYY-MM-DD]\n"
      "  --render-chat            print the prompt the chat template renders for CASE.json\n"
      "                           ({\"messages\", \"tools\", \"add_generation_prompt\", "
      "\"kwargs\",\n"
      "                           \"bos_token\", \"eos_token\"}), exactly, without a newline;\n"
      "                           --model: the model's tokenizer.chat_template and bos/eos\n"
      "  --date YYYY-MM-DD        the date strftime_now sees (default: now, local time)\n"
      "exit status: 0 ok, 1 error, 2 usage\n");
}

std::optional<Options> Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--model" && has_value) {
      o.model = argv[++i];
    } else if (a == "--tokenizer-json" && has_value) {
      o.tokenizer_json = argv[++i];
    } else if (a == "--text" && has_value) {
      o.text = argv[++i];
    } else if (a == "--text-file" && has_value) {
      std::ifstream in(argv[++i], std::ios::binary);
      if (!in) throw orcd::Error(orcd::ErrorCode::kNotFound, std::string("cannot read ") + argv[i]);
      std::ostringstream text;
      text << in.rdbuf();
      o.text = text.str();
    } else if (a == "--ids" && has_value) {
      o.ids = argv[++i];
    } else if (a == "--info") {
      o.info = true;
    } else if (a == "--no-special") {
      o.add_special = false;
    } else if (a == "--parse-special") {
      o.parse_special = true;
    } else if (a == "--template" && has_value) {
      o.template_file = argv[++i];
    } else if (a == "--conversation" && has_value) {
      o.conversation = argv[++i];
    } else if (a == "--date" && has_value) {
      o.date = argv[++i];
    } else if (a == "--render-chat") {
      o.render_chat = true;
    } else {
      return std::nullopt;
    }
  }
  if (o.render_chat || o.template_file || o.conversation || o.date) {
    const bool one_source = (o.template_file ? 1 : 0) + (o.model ? 1 : 0) == 1;
    if (!o.render_chat || !o.conversation || !one_source || o.tokenizer_json || o.text || o.ids ||
        o.info) {
      return std::nullopt;
    }
    return o;
  }
  const int actions = (o.text ? 1 : 0) + (o.ids ? 1 : 0) + (o.info ? 1 : 0);
  if ((!o.model && !o.tokenizer_json) || actions != 1) return std::nullopt;
  return o;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw orcd::Error(orcd::ErrorCode::kNotFound, "cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// --date YYYY-MM-DD as the local time strftime_now reads (midnight).
std::tm ParseDate(const std::string& date) {
  std::tm t{};
  if (std::sscanf(date.c_str(), "%d-%d-%d", &t.tm_year, &t.tm_mon, &t.tm_mday) != 3) {
    throw orcd::Error(orcd::ErrorCode::kInvalidArgument, "--date wants YYYY-MM-DD, got " + date);
  }
  t.tm_year -= 1900;
  t.tm_mon -= 1;
  std::tm normalized = t;
  if (timegm(&normalized) == -1) {
    throw orcd::Error(orcd::ErrorCode::kInvalidArgument, "--date: no such date " + date);
  }
  return normalized;  // timegm fills the weekday and day of the year
}

// --render-chat: the exact prompt, or the template's error (exit 1).
int RenderChat(const Options& o) {
  const orcd::jinja::Value conversation = orcd::jinja::ParseJsonValue(ReadFile(*o.conversation));
  orcd::ChatRenderInput input = orcd::ChatRenderInputFromCase(conversation);
  std::string source;
  if (o.template_file) {
    source = ReadFile(*o.template_file);
  } else {
    const std::unique_ptr<orcd::GgufFile> model = orcd::GgufFile::Open(*o.model);
    const std::optional<std::string_view> text = model->GetString("tokenizer.chat_template");
    if (!text) {
      throw orcd::Error(orcd::ErrorCode::kNotFound, *o.model + " has no tokenizer.chat_template");
    }
    source = *text;
    // The model's special tokens, unless the conversation names its own.
    if (conversation.AsDict().Find("bos_token") == nullptr) {
      input.bos_token = orcd::GgufTokenText(*model, "tokenizer.ggml.bos_token_id");
    }
    if (conversation.AsDict().Find("eos_token") == nullptr) {
      input.eos_token = orcd::GgufTokenText(*model, "tokenizer.ggml.eos_token_id");
    }
  }
  orcd::jinja::RenderOptions options;
  if (o.date) {
    const std::tm date = ParseDate(*o.date);
    options.now = [date] { return date; };
  }
  std::string prompt;
  try {
    prompt = orcd::jinja::JinjaTemplate::Parse(source).Render(orcd::ChatVariables(input), options);
  } catch (const orcd::jinja::TemplateError& e) {
    std::fprintf(stderr, "orcd-tokenize: %s\n", e.what());
    return 1;
  }
  std::fwrite(prompt.data(), 1, prompt.size(), stdout);
  return 0;
}

std::vector<orcd::TokenId> ParseIds(const std::string& list) {
  std::vector<orcd::TokenId> ids;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.find_first_not_of(" \t") == std::string::npos) continue;
    size_t used = 0;
    const long value = std::stol(item, &used);
    if (item.find_first_not_of(" \t", used) != std::string::npos) throw std::invalid_argument(item);
    ids.push_back(static_cast<orcd::TokenId>(value));
  }
  return ids;
}

std::unique_ptr<orcd::Tokenizer> Load(const Options& o) {
  if (!o.model) return orcd::LoadHfJsonTokenizer(*o.tokenizer_json);
  orcd::TokenizerSelection selection;
  if (o.tokenizer_json) selection.tokenizer_json = *o.tokenizer_json;
  const std::unique_ptr<orcd::GgufFile> model = orcd::GgufFile::Open(*o.model);
  // The family's vocabulary quirks come from the plugin serving it.
  orcd::Logger::Global().SetLevel(orcd::LogLevel::kWarn);
  orcd::PluginRegistry registry(orcd::HostServices());
  registry.LoadDirectories(orcd::DefaultPluginDirs());
  selection.family = orcd::FindFamilyTraits(registry, model->architecture());
  return orcd::CreateTokenizer(*model, *o.model, selection);
}

void PrintInfo(const orcd::Tokenizer& t) {
  const orcd::SpecialTokenIds& s = t.special_ids();
  std::printf(
      "{\"kind\": \"%s\", \"vocab_size\": %zu, \"bos\": %d, \"eos\": %d, \"eot\": %d, "
      "\"pad\": %d, \"unk\": %d, \"add_bos\": %s, \"add_eos\": %s}\n",
      std::string(t.kind()).c_str(), t.vocab_size(), s.bos, s.eos, s.eot, s.pad, s.unk,
      t.add_bos() ? "true" : "false", t.add_eos() ? "true" : "false");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::optional<Options> options = Parse(argc, argv);
    if (!options) {
      Usage(stderr);
      return 2;
    }
    if (options->render_chat) return RenderChat(*options);
    std::vector<orcd::TokenId> ids;
    if (options->ids) {
      try {
        ids = ParseIds(*options->ids);
      } catch (const std::logic_error&) {
        std::fprintf(stderr, "orcd-tokenize: --ids wants comma-separated integers, got '%s'\n",
                     options->ids->c_str());
        return 2;
      }
    }
    const std::unique_ptr<orcd::Tokenizer> tokenizer = Load(*options);
    if (options->info) {
      PrintInfo(*tokenizer);
    } else if (options->text) {
      ids = tokenizer->Encode(*options->text, options->add_special, options->parse_special);
      std::string out = "[";
      for (size_t i = 0; i < ids.size(); ++i) out += (i ? ", " : "") + std::to_string(ids[i]);
      std::printf("%s]\n", out.c_str());
    } else {
      std::cout << orcd::DecodeTokens(*tokenizer, ids, {.render_special = options->add_special})
                << "\n";
    }
    return 0;
  } catch (const orcd::Error& e) {
    std::fprintf(stderr, "orcd-tokenize: %s: %s\n",
                 std::string(orcd::ErrorCodeName(e.code())).c_str(), e.what());
    return 1;
  }
}
