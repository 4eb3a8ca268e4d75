// Every template x conversation of fixtures/chat (README.md there) rendered
// as Python's jinja2 renders it under transformers' settings. Tolerance:
// none. A rendered case must match the expected file byte for byte; a case
// jinja2 fails must fail here too (raise_exception with the template's own
// message; a runtime error of any message).
#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "chat_test_support.h"
#include "host/chat/chat_variables.h"
#include "host/chat/jinja/jinja_template.h"
#include "host/chat/jinja/json_value.h"

namespace orcd::testing {
namespace {

namespace fs = std::filesystem;

// Poco::JSON with object key order kept, as Python's json.load keeps it.
Poco::JSON::Object::Ptr ParseObject(const std::string& text) {
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(/*preserveObjectOrder=*/true));
  return parser.parse(text).extract<Poco::JSON::Object::Ptr>();
}

// The clock transformers' strftime_now reads; the fixtures pin 2024-07-26 00:00:00.
std::tm FixtureNow() {
  std::tm t{};
  t.tm_year = 2024 - 1900;
  t.tm_mon = 6;
  t.tm_mday = 26;
  t.tm_wday = 5;  // a Friday
  t.tm_yday = 207;
  return t;
}

struct FixtureCase {
  std::string key;  // <template>.<case>
  std::string template_file;
  jinja::Value conversation;  // the case object plus bos_token / eos_token
  std::string outcome;        // "ok" or "error"
  std::string expected;       // rendered text, or the error file's text
  bool via_raise_exception = false;
  std::string raised_message;
};

std::vector<FixtureCase> LoadCases() {
  std::vector<FixtureCase> out;
  const Poco::JSON::Object::Ptr root = ParseObject(ReadFile(ChatFixtures() / "cases.json"));
  const Poco::JSON::Object::Ptr index =
      ParseObject(ReadFile(ChatFixtures() / "expected" / "index.json"));
  const Poco::JSON::Object::Ptr templates = root->getObject("templates");
  const Poco::JSON::Array::Ptr cases = root->getArray("cases");
  for (const std::string& name : templates->getNames()) {
    const Poco::JSON::Object::Ptr t = templates->getObject(name);
    for (size_t i = 0; i < cases->size(); ++i) {
      const Poco::JSON::Object::Ptr c = cases->getObject(static_cast<unsigned>(i));
      FixtureCase fc;
      fc.key = name + "." + c->getValue<std::string>("name");
      fc.template_file = t->getValue<std::string>("file");
      jinja::Dict conversation = jinja::ValueFromJson(c).AsDict();
      conversation.Set("bos_token", jinja::ValueFromJson(t->get("bos_token")));
      conversation.Set("eos_token", jinja::ValueFromJson(t->get("eos_token")));
      fc.conversation = jinja::Value::FromDict(std::move(conversation));
      const Poco::JSON::Object::Ptr e = index->getObject(fc.key);
      if (e.isNull()) continue;  // reported by AllOutcomesAreCovered
      fc.outcome = e->getValue<std::string>("outcome");
      fc.expected = ReadFile(ChatFixtures() / "expected" / e->getValue<std::string>("file"));
      if (fc.outcome == "error") {
        fc.via_raise_exception = e->getValue<bool>("via_raise_exception");
        fc.raised_message = e->getValue<std::string>("message");
      }
      out.push_back(std::move(fc));
    }
  }
  return out;
}

const std::vector<FixtureCase>& Cases() {
  static const std::vector<FixtureCase> cases = LoadCases();
  return cases;
}

const jinja::JinjaTemplate& TemplateFor(const std::string& file) {
  static std::map<std::string, jinja::JinjaTemplate> parsed;
  auto it = parsed.find(file);
  if (it == parsed.end()) {
    it = parsed.emplace(file, jinja::JinjaTemplate::Parse(ReadFile(ChatFixtures() / file))).first;
  }
  return it->second;
}

std::string Render(const FixtureCase& c) {
  jinja::RenderOptions options;
  options.now = FixtureNow;
  const jinja::Dict vars = ChatVariables(ChatRenderInputFromCase(c.conversation));
  return TemplateFor(c.template_file).Render(vars, options);
}

TEST(ChatFixtures, AllOutcomesAreCovered) {
  // 14 templates x 12 cases: 132 rendered, 14 raise_exception, 22 runtime errors.
  size_t ok = 0;
  size_t raised = 0;
  size_t failed = 0;
  for (const FixtureCase& c : Cases()) {
    if (c.outcome == "ok") ++ok;
    if (c.outcome == "error") ++(c.via_raise_exception ? raised : failed);
  }
  EXPECT_EQ(Cases().size(), 168u);
  EXPECT_EQ(ok, 132u);
  EXPECT_EQ(raised, 14u);
  EXPECT_EQ(failed, 22u);
}

TEST(ChatFixtures, EveryCaseMatchesJinja2ByteForByte) {
  ASSERT_FALSE(Cases().empty());
  size_t matched = 0;
  for (const FixtureCase& c : Cases()) {
    SCOPED_TRACE(c.key);
    if (c.outcome == "ok") {
      std::string rendered;
      try {
        rendered = Render(c);
      } catch (const std::exception& e) {
        ADD_FAILURE() << c.key << " failed to render: " << e.what();
        continue;
      }
      // No tolerance: the bytes jinja2 produced, exactly.
      EXPECT_EQ(rendered, c.expected) << c.key;
      matched += rendered == c.expected ? 1 : 0;
      continue;
    }
    try {
      const std::string rendered = Render(c);
      ADD_FAILURE() << c.key << " rendered, but jinja2 fails with " << c.expected << "\n"
                    << rendered;
    } catch (const jinja::TemplateError& e) {
      if (c.via_raise_exception) {
        EXPECT_EQ(e.kind(), jinja::ErrorKind::kRaised) << c.key << ": " << e.what();
        EXPECT_EQ(e.message(), c.raised_message) << c.key;
        EXPECT_STREQ(e.what(), c.raised_message.c_str()) << c.key;
      } else {
        EXPECT_NE(e.kind(), jinja::ErrorKind::kRaised) << c.key << ": " << e.what();
        EXPECT_NE(e.kind(), jinja::ErrorKind::kSyntax) << c.key << ": " << e.what();
        EXPECT_GT(e.line(), 0) << c.key << ": runtime errors name the template line";
      }
      ++matched;
    }
  }
  EXPECT_EQ(matched, 168u);
}

// The error kinds match jinja2's exception types (UndefinedError, TypeError).
TEST(ChatFixtures, RuntimeErrorsHaveJinja2sKind) {
  for (const FixtureCase& c : Cases()) {
    if (c.outcome != "error" || c.via_raise_exception) continue;
    SCOPED_TRACE(c.key);
    try {
      Render(c);
      ADD_FAILURE() << "rendered";
    } catch (const jinja::TemplateError& e) {
      const std::string kind(jinja::ErrorKindName(e.kind()));
      EXPECT_EQ(c.expected.substr(0, kind.size() + 1), kind + ":") << e.what();
    }
  }
}

}  // namespace
}  // namespace orcd::testing
