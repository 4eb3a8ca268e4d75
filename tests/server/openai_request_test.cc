// OpenAI request parsing: wrong types and out-of-range numbers are 400s
// naming the field, never an exception (which the server turned into 500).
#include "host/server/openai_request.h"

#include <gtest/gtest.h>

#include "host/server/chat_reply_grammar.h"
#include "host/server/request_validation.h"

namespace orcd {
namespace {

RequestLimits Limits() { return RequestLimits{}; }

struct Case {
  bool chat;
  const char* body;
  const char* field;
};

class OpenAiRequestInvalid : public ::testing::TestWithParam<Case> {};

TEST_P(OpenAiRequestInvalid, IsAValidationErrorNamingTheField) {
  auto r = ParseOpenAiRequest(GetParam().body, GetParam().chat, Limits());
  ASSERT_TRUE(std::holds_alternative<ValidationError>(r)) << "accepted: " << GetParam().body;
  EXPECT_EQ(std::get<ValidationError>(r).field, GetParam().field) << GetParam().body;
}

constexpr const char* kMsg = R"("messages":[{"role":"user","content":"hi"}])";

std::string Chat(const std::string& extra) { return "{" + std::string(kMsg) + extra + "}"; }

INSTANTIATE_TEST_SUITE_P(
    Fields, OpenAiRequestInvalid,
    ::testing::Values(
        Case{true, "[]", ""}, Case{true, "{", ""},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"n":"2"})", "n"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"n":[1]})", "n"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"n":1e300})", "n"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"n":true})", "n"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"n":17})", "n"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"n":0})", "n"},
        Case{true,
             R"({"messages":[{"role":"user","content":"hi"}],"top_logprobs":21,)"
             R"("logprobs":true})",
             "top_logprobs"},
        Case{false, R"({"prompt":"hi","logprobs":true})", "logprobs"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"frequency_penalty":-2.5})",
             "frequency_penalty"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"logit_bias":[1]})",
             "logit_bias"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"cache_salt":false})",
             "cache_salt"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"seed":-1})", "seed"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"seed":18446744073709551616})",
             "seed"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"seed":true})", "seed"},
        Case{true,
             R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":9223372036854775808})",
             "max_tokens"},
        Case{true,
             R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":18446744073709551615})",
             "max_tokens"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":true})",
             "max_tokens"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":-3})",
             "max_completion_tokens"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"temperature":true})",
             "temperature"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"top_p":"1"})", "top_p"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"stream":1})", "stream"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"model":5})", "model"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"stop":[1]})", "stop[0]"},
        Case{true, R"({"messages":[{"role":"user","content":"hi"}],"stop":{}})", "stop"},
        Case{true, R"({"messages":[{"role":"user","content":42}]})", "messages[0].content"},
        Case{true, R"({"messages":[{"role":"user","content":{"text":"x"}}]})",
             "messages[0].content"},
        Case{true, R"({"messages":[{"role":"user","content":[{"type":"text","text":5}]}]})",
             "messages[0].content[0].text"},
        Case{true, R"({"messages":[{"role":"user","content":[{"type":"text"}]}]})",
             "messages[0].content[0].text"},
        Case{true, R"({"messages":[{"role":"user","content":["hi"]}]})", "messages[0].content[0]"},
        Case{true, R"({"messages":[{"role":"user","content":[{"type":"image_url"}]}]})",
             "messages[0].content[0]"},
        Case{true, R"({"messages":[{"role":7,"content":"x"}]})", "messages[0]"},
        Case{true, R"({"messages":"hi"})", "messages"},
        Case{true, R"({"messages":[]})", "messages"}, Case{false, R"({"prompt":["a"]})", "prompt"},
        Case{false, R"({"prompt":""})", "prompt"}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(OpenAiRequest, AcceptsTheUsualShapes) {
  auto r = ParseOpenAiRequest(
      Chat(R"(,"n":1,"seed":18446744073709551615,"max_tokens":5,"stream":false,"stop":"x")"), true,
      Limits());
  ASSERT_TRUE(std::holds_alternative<OpenAiRequest>(r)) << std::get<ValidationError>(r).message;
  const OpenAiRequest& ok = std::get<OpenAiRequest>(r);
  EXPECT_EQ(ok.sampling.seed, 18446744073709551615ull);
  EXPECT_EQ(ok.max_tokens, 5);
  auto parts = ParseOpenAiRequest(
      R"({"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},
          {"role":"assistant","content":null}]})",
      true, Limits());
  ASSERT_TRUE(std::holds_alternative<OpenAiRequest>(parts));
  const jinja::ValueList& messages = std::get<OpenAiRequest>(parts).chat_request.messages.AsList();
  EXPECT_EQ(messages[0].AsDict().Find("content")->AsString(), "ab");
  EXPECT_TRUE(messages[1].AsDict().Find("content")->is_none()) << "null stays null";
}

constexpr const char* kTools =
    R"(,"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}])";

TEST(OpenAiRequest, ToolsAndToolChoiceReachTheTemplate) {
  auto r = ParseOpenAiRequest(Chat(kTools), true, Limits());
  ASSERT_TRUE(std::holds_alternative<OpenAiRequest>(r)) << std::get<ValidationError>(r).message;
  const OpenAiRequest& ok = std::get<OpenAiRequest>(r);
  EXPECT_TRUE(ok.tools_enabled);
  ASSERT_TRUE(ok.chat_request.tools.is_list());
  // Key order kept: templates print tools with tojson.
  const jinja::Dict& function =
      ok.chat_request.tools.AsList()[0].AsDict().Find("function")->AsDict();
  EXPECT_EQ(function.entries()[0].first, "name");
  EXPECT_EQ(function.entries()[1].first, "parameters");

  auto none =
      ParseOpenAiRequest(Chat(std::string(kTools) + R"(,"tool_choice":"none")"), true, Limits());
  ASSERT_TRUE(std::holds_alternative<OpenAiRequest>(none));
  EXPECT_FALSE(std::get<OpenAiRequest>(none).tools_enabled);
  EXPECT_TRUE(std::get<OpenAiRequest>(none).chat_request.tools.is_none()) << "withdrawn";

  auto named = ParseOpenAiRequest(
      Chat(std::string(kTools) +
           R"(,"tool_choice":{"type":"function","function":{"name":"get_weather"}})"),
      true, Limits());
  EXPECT_TRUE(std::holds_alternative<OpenAiRequest>(named));
}

// Requests that say the same schema (or force the same tools) get the same
// grammar object, whose masks are then shared by their jobs (mask_cache.h);
// anything that changes the grammar gives another.
TEST(OpenAiRequest, TheSameSchemaOrForcedToolsGiveTheSameGrammarObject) {
  const std::string format =
      R"(,"response_format":{"type":"json_schema","json_schema":{"name":"p","schema":)"
      R"({"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}}})";
  const auto first = ParseOpenAiRequest(Chat(format), true, Limits());
  const auto second = ParseOpenAiRequest(Chat(format), true, Limits());
  ASSERT_TRUE(std::holds_alternative<OpenAiRequest>(first));
  ASSERT_TRUE(std::holds_alternative<OpenAiRequest>(second));
  ASSERT_NE(std::get<OpenAiRequest>(first).grammar, nullptr);
  EXPECT_EQ(std::get<OpenAiRequest>(first).grammar, std::get<OpenAiRequest>(second).grammar);

  const auto forced = [](const std::string& choice) {
    auto r = ParseOpenAiRequest(Chat(std::string(kTools) + R"(,"tool_choice":)" + choice), true,
                                Limits());
    EXPECT_TRUE(std::holds_alternative<OpenAiRequest>(r));
    return std::get<OpenAiRequest>(r).forced_tools;
  };
  const auto tools = forced(R"("required")");
  ASSERT_FALSE(tools.empty());
  const auto tags = ForcedToolCallGrammar(ChatOutputFormat::kToolCallTags, tools);
  ASSERT_NE(tags, nullptr);
  EXPECT_EQ(ForcedToolCallGrammar(ChatOutputFormat::kToolCallTags, forced(R"("required")")), tags);
  EXPECT_NE(ForcedToolCallGrammar(ChatOutputFormat::kHarmony, tools), tags);
  // No parameters (any object) and the schema {} (any value) differ.
  std::vector<structured::ToolSchema> bare = {{tools[0].name, Poco::Dynamic::Var()}};
  std::vector<structured::ToolSchema> any = {
      {tools[0].name, Poco::Dynamic::Var(Poco::JSON::Object::Ptr(new Poco::JSON::Object))}};
  EXPECT_NE(ForcedToolCallGrammar(ChatOutputFormat::kToolCallTags, bare),
            ForcedToolCallGrammar(ChatOutputFormat::kToolCallTags, any));
}

// response_format json beside tools: with tool_choice "auto" every offered
// function may be called instead of answering (the reply's grammar holds
// both: JsonAnswerOrToolCallGrammar); with "required" the call is forced and
// the format has no place; without the format nothing is held.
TEST(OpenAiRequest, ResponseFormatWithAutoToolsLetsTheReplyCallOrAnswer) {
  const std::string format = R"(,"response_format":{"type":"json_object"})";
  const auto parse = [](const std::string& extra) {
    auto r = ParseOpenAiRequest(Chat(std::string(kTools) + extra), true, Limits());
    EXPECT_TRUE(std::holds_alternative<OpenAiRequest>(r));
    return std::get<OpenAiRequest>(r);
  };
  const OpenAiRequest automatic = parse(format);
  ASSERT_NE(automatic.grammar, nullptr);
  EXPECT_TRUE(automatic.forced_tools.empty());
  ASSERT_FALSE(automatic.callable_tools.empty());
  EXPECT_EQ(automatic.callable_tools[0].name, "get_weather");
  const auto grammar = JsonAnswerOrToolCallGrammar(ChatOutputFormat::kToolCallTags,
                                                   automatic.json_schema, automatic.callable_tools);
  ASSERT_NE(grammar, nullptr);
  EXPECT_EQ(JsonAnswerOrToolCallGrammar(ChatOutputFormat::kToolCallTags, automatic.json_schema,
                                        parse(format).callable_tools),
            grammar)
      << "kept across requests";
  EXPECT_EQ(JsonAnswerOrToolCallGrammar(ChatOutputFormat::kPlain, automatic.json_schema,
                                        automatic.callable_tools),
            nullptr)
      << "a format without call markup";

  const OpenAiRequest required = parse(format + R"(,"tool_choice":"required")");
  EXPECT_FALSE(required.forced_tools.empty());
  EXPECT_TRUE(required.callable_tools.empty());
  EXPECT_TRUE(parse("").callable_tools.empty());
  EXPECT_TRUE(parse(format + R"(,"tool_choice":"none")").callable_tools.empty());
}

TEST(OpenAiRequest, ReasoningEffortAndTemplateKwargsBecomeTemplateVariables) {
  auto r = ParseOpenAiRequest(
      Chat(R"(,"reasoning_effort":"high","chat_template_kwargs":{"enable_thinking":false})"), true,
      Limits());
  ASSERT_TRUE(std::holds_alternative<OpenAiRequest>(r)) << std::get<ValidationError>(r).message;
  const jinja::Dict& kwargs = std::get<OpenAiRequest>(r).chat_request.kwargs;
  ASSERT_NE(kwargs.Find("reasoning_effort"), nullptr);
  EXPECT_EQ(kwargs.Find("reasoning_effort")->AsString(), "high");
  ASSERT_NE(kwargs.Find("enable_thinking"), nullptr);
  EXPECT_FALSE(kwargs.Find("enable_thinking")->AsBool());
}

TEST(OpenAiRequest, MalformedToolFieldsNameTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {Chat(R"(,"tools":{})"), "tools"},
      {Chat(R"(,"tools":[{"type":"function","function":{"name":""}}])"), "tools[0].function.name"},
      {Chat(R"(,"tools":[{"type":"retrieval"}])"), "tools[0].type"},
      {Chat(R"(,"tool_choice":"required")"), "tool_choice"},
      {Chat(R"(,"tool_choice":"sometimes")"), "tool_choice"},
      {Chat(std::string(kTools) +
            R"(,"tool_choice":{"type":"function","function":{"name":"other"}})"),
       "tool_choice.function.name"},
      {Chat(R"(,"reasoning_effort":"extreme")"), "reasoning_effort"},
      {Chat(R"(,"chat_template_kwargs":{"messages":[]})"), "chat_template_kwargs.messages"},
      {R"({"messages":[{"role":"assistant","tool_calls":[{"type":"function"}]}]})",
       "messages[0].tool_calls[0].function"},
  };
  for (const auto& [body, field] : cases) {
    auto r = ParseOpenAiRequest(body, true, Limits());
    ASSERT_TRUE(std::holds_alternative<ValidationError>(r)) << "accepted: " << body;
    EXPECT_EQ(std::get<ValidationError>(r).field, field) << body;
  }
}

TEST(RequestValidation, WidenOutOfRangeIntegers) {
  EXPECT_EQ(WidenOutOfRangeIntegers(R"({"a":18446744073709551615,"b":-9223372036854775808})"),
            R"({"a":18446744073709551615,"b":-9223372036854775808})");
  EXPECT_EQ(WidenOutOfRangeIntegers(R"({"a":18446744073709551616,"b":-9223372036854775809})"),
            R"({"a":18446744073709551616.0,"b":-9223372036854775809.0})");
  EXPECT_EQ(WidenOutOfRangeIntegers(R"({"s":"99999999999999999999999","x":1e99,"y":2.5})"),
            R"({"s":"99999999999999999999999","x":1e99,"y":2.5})")
      << "strings, exponents and fractions are left alone";
  EXPECT_EQ(WidenOutOfRangeIntegers(R"({"s":"a\"99999999999999999999999"})"),
            R"({"s":"a\"99999999999999999999999"})");
}

}  // namespace
}  // namespace orcd
