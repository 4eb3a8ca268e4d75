// Fuzz target: the chat template engine. The input is a template: parsed,
// then rendered with three fixture conversations (plain turns, a tool call,
// a system prompt with tools and extra keyword arguments) under small limits,
// so that a template that loops, recurses or grows strings hits a limit in
// milliseconds. A template is untrusted input (it ships inside the model
// file): every failure must be a TemplateError, never a crash, a hang or
// another exception.
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "host/chat/chat_variables.h"
#include "host/chat/jinja/jinja_template.h"
#include "host/chat/jinja/json_value.h"
#include "tests/fuzz/fuzz_support.h"

namespace orcd::fuzz {
namespace {

std::vector<jinja::Dict> LoadConversations() {
  std::ifstream in(FixturesDir() / "chat" / "cases.json", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(/*preserveObjectOrder=*/true));
  const auto root = parser.parse(text.str()).extract<Poco::JSON::Object::Ptr>();
  const Poco::JSON::Array::Ptr cases = root->getArray("cases");
  std::vector<jinja::Dict> conversations;
  for (size_t i = 0; i < cases->size(); ++i) {
    const Poco::JSON::Object::Ptr c = cases->getObject(static_cast<unsigned>(i));
    const std::string name = c->getValue<std::string>("name");
    if (name != "multi_turn" && name != "tools_call" && name != "extra_kwargs") continue;
    jinja::Dict conversation = jinja::ValueFromJson(c).AsDict();
    conversation.Set("bos_token", jinja::Value("<s>"));
    conversation.Set("eos_token", jinja::Value("</s>"));
    conversations.push_back(
        ChatVariables(ChatRenderInputFromCase(jinja::Value::FromDict(std::move(conversation)))));
  }
  Check(conversations.size() == 3, "the three fixture conversations load");
  return conversations;
}

const std::vector<jinja::Dict>& Conversations() {
  static const auto* conversations = new std::vector<jinja::Dict>(LoadConversations());
  return *conversations;
}

jinja::RenderOptions SmallLimits() {
  jinja::RenderOptions options;
  options.limits.max_output_bytes = 64 << 10;
  options.limits.max_loop_iterations = 20'000;
  options.limits.max_call_depth = 16;
  options.limits.max_work_bytes = 4 << 20;
  options.now = [] {
    std::tm t{};
    t.tm_year = 124;
    t.tm_mon = 6;
    t.tm_mday = 26;
    return t;
  };
  return options;
}

}  // namespace
}  // namespace orcd::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  orcd::fuzz::Conversations();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const orcd::jinja::RenderOptions options = orcd::fuzz::SmallLimits();
  const auto& conversations = orcd::fuzz::Conversations();
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  try {
    const orcd::jinja::JinjaTemplate compiled = orcd::jinja::JinjaTemplate::Parse(source);
    for (const orcd::jinja::Dict& variables : conversations) {
      try {
        const std::string text = compiled.Render(variables, options);
        orcd::fuzz::Check(text.size() <= options.limits.max_output_bytes,
                          "output within its limit");
      } catch (const orcd::jinja::TemplateError&) {
        // A template may fail on one conversation and render another.
      }
    }
  } catch (const orcd::jinja::TemplateError&) {
  }
  return 0;
}
