// The JSON Schema compiler's grammars, keyword by keyword: what a compact
// instance may be, and the keywords it refuses by name. (The JSON Schema
// Test Suite's instances: json_schema_suite_test.cc.)
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include "host/common/status.h"
#include "host/structured/grammar_matcher.h"
#include "host/structured/json_answer_grammar.h"
#include "host/structured/json_schema_grammar.h"
#include "host/structured/tool_call_grammar.h"
#include "schema_text.h"

namespace orcd::structured {
namespace {

bool Matches(const std::shared_ptr<const Grammar>& g, const std::string& text) {
  GrammarMatcher m(g);
  return m.AcceptBytes(text) && m.CanEnd();
}

std::string Refusal(const std::string& schema) {
  try {
    CompileSchema(schema);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "(compiled)";
}

TEST(JsonSchemaGrammar, ObjectsKeepTheSchemasOrderRequiredAndExtras) {
  const auto g = CompileSchema(R"({"type":"object","properties":{"name":{"type":"string"},
      "age":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}},
      "required":["name","tags"],"additionalProperties":false})");
  EXPECT_TRUE(Matches(g, R"({"name":"Ann","tags":[]})"));
  EXPECT_TRUE(Matches(g, R"({"name":"Ann","age":41,"tags":["a","b"]})"));
  EXPECT_FALSE(Matches(g, R"({"name":"Ann"})")) << "a required property missing";
  EXPECT_FALSE(Matches(g, R"({"tags":[],"name":"Ann"})")) << "out of the schema's order";
  EXPECT_FALSE(Matches(g, R"({"name":"Ann","tags":[],"x":1})")) << "additionalProperties false";
  EXPECT_FALSE(Matches(g, R"({"name":"Ann","age":4.5,"tags":[]})"));
  EXPECT_FALSE(Matches(g, R"({ "name":"Ann","tags":[]})")) << "compact: no whitespace";

  const auto open = CompileSchema(R"({"properties":{"a":{"type":"boolean"}}})");
  EXPECT_TRUE(Matches(open, R"({})"));
  EXPECT_TRUE(Matches(open, R"({"a":true,"b":[1,{"c":null}]})")) << "extras after the listed";
  EXPECT_TRUE(Matches(open, R"("not an object")")) << "no type: any type, keywords per type";
}

TEST(JsonSchemaGrammar, IntegerRangesAdmitExactlyTheirIntegers) {
  for (const auto& [lo, hi] : {std::pair{-123, 4567}, std::pair{0, 0}, std::pair{7, 19},
                               std::pair{-50, -3}, std::pair{100, 999}, std::pair{-9, 10}}) {
    const auto g = CompileSchema(R"({"type":"integer","minimum":)" + std::to_string(lo) +
                                 R"(,"maximum":)" + std::to_string(hi) + "}");
    for (int v = -200; v <= 5000; ++v)
      ASSERT_EQ(Matches(g, std::to_string(v)), v >= lo && v <= hi)
          << v << " in [" << lo << ", " << hi << "]";
    EXPECT_FALSE(Matches(g, "-0" + std::to_string(std::max(lo, 1)))) << "leading zeros";
  }
  const auto at_least = CompileSchema(R"({"type":"integer","minimum":-15})");
  for (int v = -100; v <= 100000; v += 7)
    ASSERT_EQ(Matches(at_least, std::to_string(v)), v >= -15) << v;
  EXPECT_TRUE(Matches(at_least, "123456789012345"));
  const auto at_most = CompileSchema(R"({"type":"integer","maximum":42})");
  for (int v = -100000; v <= 100; v += 3)
    ASSERT_EQ(Matches(at_most, std::to_string(v)), v <= 42) << v;
}

TEST(JsonSchemaGrammar, StringLengthsCountCharactersNotBytes) {
  const auto g = CompileSchema(R"({"type":"string","minLength":2,"maxLength":3})");
  EXPECT_FALSE(Matches(g, R"("a")"));
  EXPECT_TRUE(Matches(g, R"("ab")"));
  EXPECT_TRUE(Matches(g, "\"h\xC3\xA9\xE2\x82\xAC\""));  // h, e-acute, euro: 3 characters
  EXPECT_TRUE(Matches(g, R"("a\"\u00e9")")) << "escapes count as one character";
  EXPECT_FALSE(Matches(g, R"("abcd")"));
  EXPECT_FALSE(Matches(g, "\"a\nb\"")) << "a raw control character";
  EXPECT_FALSE(Matches(g, "\"a\xFF\"")) << "not UTF-8";
  EXPECT_FALSE(Matches(g, "\"a\xE0\x80\x80\"")) << "an overlong form";
  EXPECT_FALSE(Matches(g, "\"a\xED\xA0\x80\"")) << "a surrogate";
}

TEST(JsonSchemaGrammar, FormatsEnumsConstsAndRecursiveReferences) {
  const auto date = CompileSchema(R"({"type":"string","format":"date"})");
  EXPECT_TRUE(Matches(date, R"("2026-11-28")"));
  EXPECT_FALSE(Matches(date, R"("2026-13-01")"));
  const auto stamp = CompileSchema(R"({"type":"string","format":"date-time"})");
  EXPECT_TRUE(Matches(stamp, R"("2026-11-28T10:51:32.5Z")"));
  EXPECT_TRUE(Matches(stamp, R"("2026-11-28T23:59:00+05:30")"));
  const auto uuid = CompileSchema(R"({"format":"uuid","type":"string"})");
  EXPECT_TRUE(Matches(uuid, R"("123e4567-e89b-12d3-a456-426614174000")"));
  const auto email = CompileSchema(R"({"type":"string","format":"email"})");
  EXPECT_TRUE(Matches(email, R"("first.last+tag@mail.example.org")"));
  EXPECT_FALSE(Matches(email, R"("no-at-sign.example.org")"));

  const auto colors = CompileSchema(R"({"enum":["red","green",3,null,{"k":[1]}]})");
  for (const char* ok : {R"("red")", R"("green")", "3", "null", R"({"k":[1]})"})
    EXPECT_TRUE(Matches(colors, ok)) << ok;
  EXPECT_FALSE(Matches(colors, R"("blue")"));
  EXPECT_TRUE(Matches(CompileSchema(R"({"const":"x"})"), R"("x")"));

  const auto tree = CompileSchema(R"({"$defs":{"node":{"type":"object","properties":{
      "v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},
      "required":["v"],"additionalProperties":false}},"$ref":"#/$defs/node"})");
  EXPECT_TRUE(Matches(tree, R"({"v":1,"kids":[{"v":2},{"v":3,"kids":[{"v":4}]}]})"));
  EXPECT_FALSE(Matches(tree, R"({"v":1,"kids":[{"w":2}]})"));

  const auto either =
      CompileSchema(R"({"anyOf":[{"type":"integer"},{"type":"array","maxItems":1}]})");
  EXPECT_TRUE(Matches(either, "12"));
  EXPECT_TRUE(Matches(either, "[true]"));
  EXPECT_FALSE(Matches(either, "[1,2]"));
}

TEST(JsonSchemaGrammar, ArraysCountTheirItemsAndTuples) {
  const auto g =
      CompileSchema(R"({"type":"array","items":{"type":"boolean"},"minItems":2,"maxItems":3})");
  EXPECT_FALSE(Matches(g, "[true]"));
  EXPECT_TRUE(Matches(g, "[true,false]"));
  EXPECT_TRUE(Matches(g, "[true,false,true]"));
  EXPECT_FALSE(Matches(g, "[true,false,true,true]"));
  const auto tuple =
      CompileSchema(R"({"prefixItems":[{"type":"integer"},{"type":"string"}],"items":false})");
  EXPECT_TRUE(Matches(tuple, "[]"));
  EXPECT_TRUE(Matches(tuple, "[1]"));
  EXPECT_TRUE(Matches(tuple, R"([1,"a"])"));
  EXPECT_FALSE(Matches(tuple, R"([1,"a",2])"));
  EXPECT_FALSE(Matches(tuple, R"(["a"])"));
}

// pattern: the subset README lists, matched on the decoded characters (a
// quote in the pattern is \" in the output), anywhere unless anchored.
TEST(JsonSchemaGrammar, PatternsOfTheSupportedSubset) {
  const auto code = CompileSchema(R"({"type":"string","pattern":"^[A-Z]{3}-\\d{2,4}$"})");
  EXPECT_TRUE(Matches(code, R"("ABC-12")"));
  EXPECT_TRUE(Matches(code, R"("XYZ-1234")"));
  EXPECT_FALSE(Matches(code, R"("ABC-12345")"));
  EXPECT_FALSE(Matches(code, R"("abc-12")"));
  const auto anywhere = CompileSchema(R"({"type":"string","pattern":"a+b"})");
  EXPECT_TRUE(Matches(anywhere, R"("xxaab yy")"));
  EXPECT_FALSE(Matches(anywhere, R"("ba")"));
  const auto pets = CompileSchema(R"({"type":"string","pattern":"^(?:cat|dog)s?$"})");
  for (const char* ok : {R"("cat")", R"("dogs")"}) EXPECT_TRUE(Matches(pets, ok)) << ok;
  EXPECT_FALSE(Matches(pets, R"("cow")"));
  const auto letters = CompileSchema(R"({"type":"string","pattern":"^[^0-9]+$"})");
  EXPECT_TRUE(Matches(letters, "\"h\xC3\xA9llo\""));
  EXPECT_FALSE(Matches(letters, R"("a1")"));
  const auto quoted = CompileSchema(R"({"type":"string","pattern":"^\"q\"$"})");
  EXPECT_TRUE(Matches(quoted, R"("\"q\"")"));
  const auto dot = CompileSchema(R"({"type":"string","pattern":"^a.b$"})");
  EXPECT_TRUE(Matches(dot, R"("a-b")"));
  EXPECT_FALSE(Matches(dot, R"("a\nb")")) << "'.' is not a newline";
}

TEST(JsonSchemaGrammar, WhatItCannotHonourIsRefusedByName) {
  for (const auto& [schema, keyword] :
       {std::pair{R"({"type":"string","pattern":"(?=a)b"})", "pattern"},
        std::pair{R"({"type":"string","pattern":"(a)\\1"})", "pattern"},
        std::pair{R"({"type":"string","pattern":"\\p{L}+"})", "pattern"},
        std::pair{R"({"type":"array","uniqueItems":true})", "uniqueItems"},
        std::pair{R"({"not":{"type":"string"}})", "not"},
        std::pair{R"({"type":"number","multipleOf":2})", "multipleOf"},
        std::pair{R"({"type":"number","minimum":0.5})", "minimum"},
        std::pair{R"({"type":"string","format":"hostname"})", "format"},
        std::pair{R"({"$ref":"http://example.com/s.json"})", "$ref"},
        std::pair{R"({"patternProperties":{"^x":{}}})", "patternProperties"},
        std::pair{R"(false)", "false"}}) {
    const std::string why = Refusal(schema);
    EXPECT_NE(why.find("'" + std::string(keyword) + "'"), std::string::npos)
        << schema << ": " << why;
  }
}

TEST(JsonSchemaGrammar, JsonObjectModeIsAnyObject) {
  const auto g = JsonObjectGrammar();
  EXPECT_TRUE(Matches(g, R"({"a":[1,2.5e-3,"x",{"b":null}],"c":false})"));
  EXPECT_TRUE(Matches(g, "{}"));
  EXPECT_FALSE(Matches(g, "[1]"));
  EXPECT_FALSE(Matches(g, R"({"a":01})"));
}

// tool_choice "required": one call, in the format's text, to one of the
// offered functions, its arguments an instance of that function's schema.
TEST(ToolCallGrammar, OneCallToAnOfferedFunctionWithValidArguments) {
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
  const std::vector<ToolSchema> tools = {
      {"get_weather", parser.parse(R"({"type":"object","properties":{"city":{"type":"string"},
          "unit":{"enum":["c","f"]}},"required":["city"],"additionalProperties":false})")},
      {"now", Poco::Dynamic::Var()}};
  const auto hermes =
      ToolCallGrammar({{{"<tool_call>\n"}}, {}, {{"\n</tool_call>"}}, "arguments"}, tools);
  EXPECT_TRUE(Matches(hermes,
                      "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\","
                      "\"unit\":\"c\"}}\n</tool_call>"));
  EXPECT_TRUE(Matches(hermes, "<tool_call>\n{\"name\":\"now\",\"arguments\":{}}\n</tool_call>"))
      << "no parameters: any object";
  EXPECT_FALSE(Matches(hermes, "<tool_call>\n{\"name\":\"other\",\"arguments\":{}}\n</tool_call>"));
  EXPECT_FALSE(Matches(hermes,
                       "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"unit\":\"c\"}}"
                       "\n</tool_call>"))
      << "a required argument missing";
  EXPECT_FALSE(Matches(hermes, "Sure! <tool_call>")) << "content instead of the call";

  const auto llama = ToolCallGrammar({{}, {}, {}, "parameters"}, {tools[0]});
  EXPECT_TRUE(Matches(llama, R"({"name":"get_weather","parameters":{"city":"Oslo"}})"));
  EXPECT_FALSE(Matches(llama, R"({"name":"now","parameters":{}})")) << "a function not offered";
}

// Harmony's call: control tokens where the format has them (never spelled
// in bytes), the name inside the markup, the arguments after <|message|>.
TEST(ToolCallGrammar, HarmonyCallsUseControlTokens) {
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
  const auto g = ToolCallGrammar(
      {{{"<|channel|>", true}, {"commentary to=functions."}},
       {{" "}, {"<|constrain|>", true}, {"json"}, {"<|message|>", true}},
       {},
       ""},
      {{"get_weather", parser.parse(R"({"type":"object","properties":{"city":{"type":"string"}},
          "required":["city"],"additionalProperties":false})")}});
  ASSERT_EQ(g->control_tokens(), 3u);
  GrammarMatcher m(g);
  EXPECT_FALSE(GrammarMatcher(g).AcceptBytes("<|channel|>")) << "a control token spelled in bytes";
  EXPECT_EQ(m.ControlTokensNext(), std::vector<uint32_t>{0});
  ASSERT_TRUE(m.AcceptControlToken(0));
  EXPECT_FALSE(GrammarMatcher(m).AcceptControlToken(0));
  ASSERT_TRUE(m.AcceptBytes("commentary to=functions.get_weather "));
  ASSERT_TRUE(m.AcceptControlToken(1));
  ASSERT_TRUE(m.AcceptBytes("json"));
  ASSERT_TRUE(m.AcceptControlToken(2));
  EXPECT_FALSE(m.CanEnd());
  ASSERT_TRUE(m.AcceptBytes(R"({"city":"Oslo"})"));
  EXPECT_TRUE(m.CanEnd());
  EXPECT_FALSE(m.CanContinue());
}

// response_format json on harmony: an analysis message (any text, never a
// control token spelled in it) may come first; the final message is the
// schema's instance and ends the reply.
TEST(JsonAnswerGrammar, HarmonyReasonsFreelyThenAnswersWithTheJson) {
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
  const JsonAnswerText harmony{{{"<|channel|>", true}, {"analysis"}, {"<|message|>", true}},
                               {{"<|end|>", true}, {"<|start|>", true}, {"assistant"}},
                               {{"<|channel|>", true}, {"final"}, {"<|message|>", true}}};
  const auto g = JsonAnswerGrammar(
      harmony, parser.parse(R"({"type":"object","properties":{"n":{"type":"integer"}},
          "required":["n"],"additionalProperties":false})"));
  // Control tokens by index: <|channel|> 0, <|message|> 1, <|end|> 2, <|start|> 3.
  ASSERT_EQ(g->control_tokens(), 4u);
  const auto walk = [&](GrammarMatcher& m, const std::vector<std::string>& steps) {
    for (const std::string& step : steps) {
      const bool ok = step.size() == 1 && step[0] >= '0' && step[0] <= '3'
                          ? m.AcceptControlToken(static_cast<uint32_t>(step[0] - '0'))
                          : m.AcceptBytes(step);
      if (!ok) return false;
    }
    return true;
  };
  GrammarMatcher reasoned(g);
  ASSERT_TRUE(walk(reasoned, {"0", "analysis", "1", "Weigh <|end|> spelled out, and \xff bytes.",
                              "2", "3", "assistant", "0", "final", "1"}));
  EXPECT_FALSE(reasoned.CanEnd()) << "the answer is still missing";
  EXPECT_FALSE(GrammarMatcher(reasoned).AcceptBytes(R"({"n":"x"})")) << "not the schema's";
  ASSERT_TRUE(reasoned.AcceptBytes(R"({"n":42})"));
  EXPECT_TRUE(reasoned.CanEnd());
  EXPECT_FALSE(reasoned.CanContinue());

  GrammarMatcher direct(g);
  ASSERT_TRUE(walk(direct, {"0", "final", "1", R"({"n":-1})"}));
  EXPECT_TRUE(direct.CanEnd()) << "the analysis message is optional";

  GrammarMatcher other(g);
  ASSERT_TRUE(other.AcceptControlToken(0));
  EXPECT_FALSE(GrammarMatcher(other).AcceptBytes("commentary")) << "no other channel";
  GrammarMatcher unended(g);
  ASSERT_TRUE(walk(unended, {"0", "analysis", "1", "thinking"}));
  EXPECT_FALSE(GrammarMatcher(unended).AcceptControlToken(0)) << "the analysis ends with <|end|>";

  // json_object: any object as the answer, nothing else.
  const auto object = JsonAnswerGrammar(harmony, Poco::Dynamic::Var());
  GrammarMatcher any(object);
  ASSERT_TRUE(walk(any, {"0", "final", "1"}));
  EXPECT_FALSE(GrammarMatcher(any).AcceptBytes("[1]"));
  ASSERT_TRUE(any.AcceptBytes(R"({"a":[1,{"b":null}]})"));
  EXPECT_TRUE(any.CanEnd());
}

}  // namespace
}  // namespace orcd::structured
