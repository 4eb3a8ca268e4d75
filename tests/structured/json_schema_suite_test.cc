// The JSON Schema Test Suite (draft 4, Debian's json-schema-test-suite):
// for every test group whose schema uses only supported keywords, every
// instance the suite calls valid, written compactly with its properties in
// the schema's order (the order constrained output takes), is accepted by
// the grammar byte by byte and by the token masks of three vocabularies
// (qwen2's and gpt-oss's byte-level BPE, phi-3's SentencePiece) token by
// token, each token one the mask allows, the end allowed after the last.
// Groups using other keywords are counted by the keyword refused.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include "host/common/json_escape.h"
#include "host/common/status.h"
#include "host/structured/compact_json.h"
#include "host/structured/grammar_matcher.h"
#include "host/structured/json_schema_grammar.h"
#include "host/structured/token_constraint.h"
#include "host/structured/token_trie.h"
#include "schema_text.h"
#include "tokenizer_test_support.h"

namespace orcd::structured {
namespace {

using Poco::Dynamic::Var;
using Object = Poco::JSON::Object::Ptr;
using Array = Poco::JSON::Array::Ptr;

const std::filesystem::path kSuite = "/usr/share/json-schema-test-suite/tests/draft4";

bool IsObject(const Var& v) { return v.type() == typeid(Object); }
bool IsArray(const Var& v) { return v.type() == typeid(Array); }

Var Resolve(const Var& root, const std::string& ref) {
  if (ref == "#") return root;
  Var at = root;
  std::stringstream parts(ref.substr(2));
  for (std::string part; std::getline(parts, part, '/');) {
    if (!IsObject(at)) return Var(true);
    at = at.extract<Object>()->get(part);
  }
  return at;
}

// The instance written compactly in the order the grammar of `schema`
// takes: each object's listed properties first, in the schema's order. One
// candidate per anyOf branch that could apply.
std::vector<std::string> Writings(const Var& data, Var schema, const Var& root, int depth = 0) {
  for (int i = 0; i < 16 && IsObject(schema) && schema.extract<Object>()->has("$ref"); ++i)
    schema = Resolve(root, schema.extract<Object>()->getValue<std::string>("$ref"));
  if (depth > 32 || !IsObject(schema)) return {CompactJson(data)};
  const Object s = schema.extract<Object>();
  for (const char* key : {"anyOf", "oneOf"}) {
    if (!s->has(key) || !IsArray(s->get(key))) continue;
    std::vector<std::string> out;
    const Var branches = s->get(key);  // extract() refers into it: keep it alive
    for (const Var& branch : *branches.extract<Array>()) {
      for (std::string& w : Writings(data, branch, root, depth + 1)) out.push_back(std::move(w));
    }
    return out;
  }
  // Listed properties (allOf's members' too), in order.
  std::vector<std::string> order;
  std::map<std::string, Var> property_schema;
  const auto collect = [&](const Object& o) {
    if (!o->has("properties") || !IsObject(o->get("properties"))) return;
    const Object props = o->get("properties").extract<Object>();
    for (const std::string& name : props->getNames()) {
      if (property_schema.emplace(name, props->get(name)).second) order.push_back(name);
    }
  };
  if (s->has("allOf") && IsArray(s->get("allOf"))) {
    const Var members = s->get("allOf");
    for (Var member : *members.extract<Array>()) {
      for (int i = 0; i < 16 && IsObject(member) && member.extract<Object>()->has("$ref"); ++i)
        member = Resolve(root, member.extract<Object>()->getValue<std::string>("$ref"));
      if (IsObject(member)) collect(member.extract<Object>());
    }
  }
  collect(s);
  if (IsObject(data)) {
    const Object d = data.extract<Object>();
    std::vector<std::string> keys;
    for (const std::string& name : order)
      if (d->has(name)) keys.push_back(name);
    for (const std::string& name : d->getNames())
      if (!property_schema.count(name)) keys.push_back(name);
    std::string out = "{";
    for (size_t i = 0; i < keys.size(); ++i) {
      Var sub = Var(true);
      if (property_schema.count(keys[i])) {
        sub = property_schema[keys[i]];
      } else if (s->has("additionalProperties") && IsObject(s->get("additionalProperties"))) {
        sub = s->get("additionalProperties");
      }
      out += (i ? "," : "") + JsonQuote(keys[i]) + ":" +
             Writings(d->get(keys[i]), sub, root, depth + 1)[0];
    }
    return {out + "}"};
  }
  if (IsArray(data)) {
    const Array a = data.extract<Array>();
    std::string out = "[";
    for (size_t i = 0; i < a->size(); ++i) {
      Var sub = Var(true);
      if (s->has("items") && IsArray(s->get("items"))) {
        const Array tuple = s->get("items").extract<Array>();
        if (i < tuple->size()) {
          sub = tuple->get(static_cast<unsigned>(i));
        } else if (s->has("additionalItems")) {
          sub = s->get("additionalItems");
        }
      } else if (s->has("items")) {
        sub = s->get("items");
      }
      out += (i ? "," : "") + Writings(a->get(static_cast<unsigned>(i)), sub, root, depth + 1)[0];
    }
    return {out + "]"};
  }
  return {CompactJson(data)};
}

bool Matches(const std::shared_ptr<const Grammar>& g, const std::string& text) {
  GrammarMatcher m(g);
  return m.AcceptBytes(text) && m.CanEnd();
}

std::string KeywordOf(const std::string& message) {
  const size_t a = message.find('\'');
  const size_t b = a == std::string::npos ? a : message.find('\'', a + 1);
  return b == std::string::npos ? message : message.substr(a + 1, b - a - 1);
}

TEST(JsonSchemaSuite, ValidInstancesOfSupportedSchemasPassTheGrammarAndTheTokenMasks) {
  ASSERT_TRUE(std::filesystem::is_directory(kSuite))
      << kSuite << " is missing: install json-schema-test-suite (scripts/install-deps.sh)";
  struct Vocab {
    const char* name;
    std::unique_ptr<TokenTrie> trie;
  };
  std::vector<Vocab> vocabs;
  for (const char* name : {"qwen2", "phi-3", "gpt-oss"}) {
    const Tokenizer& tokenizer = testing::VocabTokenizerFor(name);
    const auto start = std::chrono::steady_clock::now();
    vocabs.push_back({name, std::make_unique<TokenTrie>(tokenizer)});
    std::cout << name << ": trie of " << tokenizer.vocab_size() << " tokens, "
              << vocabs.back().trie->nodes() << " nodes, built in "
              << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count()
              << " ms\n";
  }

  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kSuite))
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  int groups = 0, supported = 0, instances = 0, masked = 0, invalid_refused = 0, invalid = 0;
  std::map<std::string, int> skipped;
  for (const auto& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const Var file_groups = ParseOrdered(text.str());
    for (const Var& group_var : *file_groups.extract<Array>()) {
      const Object group = group_var.extract<Object>();
      ++groups;
      const Var schema = group->get("schema");
      std::shared_ptr<const Grammar> grammar;
      try {
        grammar = JsonSchemaGrammar(schema);
      } catch (const Error& e) {
        ++skipped[KeywordOf(e.what())];
        continue;
      }
      ++supported;
      const std::string where =
          file.filename().string() + ": " + group->getValue<std::string>("description");
      const Var tests = group->get("tests");
      for (const Var& test_var : *tests.extract<Array>()) {
        const Object test = test_var.extract<Object>();
        const Var data = test->get("data");
        const std::vector<std::string> writings = Writings(data, schema, schema);
        std::string accepted;
        for (const std::string& w : writings)
          if (accepted.empty() && Matches(grammar, w)) accepted = w;
        if (!test->getValue<bool>("valid")) {
          ++invalid;
          invalid_refused += accepted.empty() ? 1 : 0;
          continue;
        }
        ++instances;
        ASSERT_FALSE(accepted.empty())
            << where << " / " << test->getValue<std::string>("description") << ": " << writings[0]
            << " refused";
        for (const Vocab& v : vocabs) {
          const std::vector<TokenId> ids = v.trie->LongestFirst(accepted);
          ASSERT_FALSE(ids.empty()) << v.name << " cannot spell " << accepted;
          TokenConstraint constraint(grammar, *v.trie);
          for (const TokenId id : ids) {
            ASSERT_TRUE(constraint.Allows(id)) << v.name << ": " << v.trie->piece(id);
            ASSERT_TRUE(constraint.MaskAllows(id))
                << v.name << ", " << where << ": token '" << v.trie->piece(id) << "' of "
                << accepted << " masked out";
            // The sampler's quick check and the mask agree on other tokens too.
            for (size_t k = 0; k < 48; ++k) {
              const auto other =
                  static_cast<TokenId>((id * 7919u + k * 104729u) % v.trie->vocab_size());
              ASSERT_EQ(constraint.Allows(other), constraint.MaskAllows(other))
                  << v.name << ": token '" << v.trie->piece(other) << "' after part of "
                  << accepted;
            }
            constraint.Accept(id);
            ++masked;
          }
          ASSERT_FALSE(v.trie->end_ids().empty());
          EXPECT_TRUE(constraint.Allows(v.trie->end_ids()[0]) &&
                      constraint.MaskAllows(v.trie->end_ids()[0]))
              << v.name << ": no end after " << accepted;
        }
      }
    }
  }
  std::cout << "JSON Schema Test Suite (draft 4): " << groups << " groups, " << supported
            << " supported, " << instances << " valid instances accepted (" << masked
            << " masked tokens over 3 vocabularies); " << invalid_refused << " of " << invalid
            << " invalid instances refused by the grammar alone\n  skipped, by keyword:";
  for (const auto& [keyword, n] : skipped) std::cout << " " << keyword << " " << n << ";";
  std::cout << "\n";
  // What this build supports (41 groups, 77 valid instances in draft 4):
  // a keyword that stops compiling shows here.
  EXPECT_GE(supported, 41) << "groups supported";
  EXPECT_GE(instances, 77);
}

}  // namespace
}  // namespace orcd::structured
