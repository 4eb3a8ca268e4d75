// Templates are untrusted (they come inside model files): every way to make
// a render run away ends in a clear TemplateError(kLimit) within moments,
// never a hang, a crash or unbounded memory.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>

#include "host/chat/jinja/jinja_template.h"

namespace orcd::testing {
namespace {

using jinja::ErrorKind;
using jinja::JinjaTemplate;
using jinja::TemplateError;

// Renders source expecting a limit error; returns its message.
std::string LimitErrorOf(std::string_view source, const jinja::RenderOptions& options = {}) {
  const auto start = std::chrono::steady_clock::now();
  std::string message;
  try {
    JinjaTemplate::Parse(source).Render({}, options);
    ADD_FAILURE() << "rendered without reaching a limit: " << source.substr(0, 80);
  } catch (const TemplateError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kLimit) << e.what();
    message = e.what();
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::seconds(60)) << source.substr(0, 80);
  return message;
}

TEST(JinjaLimits, EndlessMacroRecursion) {
  const std::string m = LimitErrorOf("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}");
  EXPECT_NE(m.find("macro calls nest deeper than"), std::string::npos) << m;
  // Recursion within the bound works.
  EXPECT_EQ(JinjaTemplate::Parse("{% macro r(n) %}{% if n > 0 %}{{ n }}{{ r(n - 1) }}{% endif %}"
                                 "{% endmacro %}{{ r(20) }}")
                .Render({})
                .size(),
            31u);
}

TEST(JinjaLimits, MutualRecursionAndDeepExpressionsInMacros) {
  LimitErrorOf(
      "{% macro a(n) %}{{ b(n) }}{% endmacro %}{% macro b(n) %}{{ (((a(n)))) }}{% endmacro %}"
      "{{ a(1) }}");
  jinja::RenderOptions deep;
  deep.limits.max_call_depth = 100000;  // even so, the native stack stays bounded
  LimitErrorOf("{% macro f() %}{{ [[[[[[[[f()]]]]]]]] }}{% endmacro %}{{ f() }}", deep);
}

TEST(JinjaLimits, HugeLoops) {
  const std::string m = LimitErrorOf(
      "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}");
  EXPECT_NE(m.find("loop iterations"), std::string::npos) << m;
  // jinja2's sandbox refuses ranges past MAX_RANGE.
  EXPECT_NE(LimitErrorOf("{% for i in range(10**9) %}{% endfor %}").find("MAX_RANGE"),
            std::string::npos);
  LimitErrorOf("{{ range(10**9)|list|length }}");
  // Filters over long sequences count too.
  jinja::RenderOptions few;
  few.limits.max_loop_iterations = 1000;
  LimitErrorOf("{{ range(5000)|map('string')|join }}", few);
}

TEST(JinjaLimits, OutputCap) {
  jinja::RenderOptions small;
  small.limits.max_output_bytes = 1 << 20;
  const std::string m =
      LimitErrorOf("{% for i in range(10000) %}{{ 'x' * 1000 }}{% endfor %}", small);
  EXPECT_NE(m.find("rendered text exceeds"), std::string::npos) << m;
  // The default cap (16 MiB) holds too.
  LimitErrorOf("{% for i in range(100000) %}{{ 'y' * 1000 }}{% endfor %}");
}

TEST(JinjaLimits, StringAndListBombs) {
  LimitErrorOf("{{ 'x' * 10**12 }}");
  LimitErrorOf("{{ [1, 2] * 10**12 }}");
  LimitErrorOf(
      "{% set ns = namespace(s='xx') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}"
      "{% endfor %}");
  LimitErrorOf(
      "{% set ns = namespace(s='xx') %}{% for i in range(100) %}{% set ns.s = ns.s + ns.s %}"
      "{% endfor %}");
  LimitErrorOf(
      "{% set ns = namespace(l=[1]) %}{% for i in range(100) %}{% set ns.l = ns.l + ns.l %}"
      "{% endfor %}");
  LimitErrorOf("{{ 'x'|center(10**9) }}");
  LimitErrorOf("{{ '%99999999d'|format(1) }}");
  // Total work: many strings each under the cap, together too many bytes.
  jinja::RenderOptions work;
  work.limits.max_work_bytes = 10 << 20;
  LimitErrorOf("{% for i in range(100000) %}{% set s = 'z' * 1000 %}{% endfor %}", work);
}

TEST(JinjaLimits, DeepNestingIsRefusedAtParse) {
  const std::string parens =
      "{{ " + std::string(10000, '(') + "1" + std::string(10000, ')') + " }}";
  EXPECT_NE(LimitErrorOf(parens).find("nests deeper"), std::string::npos);
  std::string ifs;
  for (int i = 0; i < 5000; ++i) ifs += "{% if true %}";
  LimitErrorOf(ifs);
  LimitErrorOf("{{ " + std::string(100000, '-') + "1 }}");
  LimitErrorOf("{{ x" + std::string(0, ' ') + [] {
    std::string s;
    for (int i = 0; i < 5000; ++i) s += "|trim";
    return s;
  }() + " }}");
}

TEST(JinjaLimits, SelfReferencesDoNotRecurseForever) {
  // A namespace holding itself prints as a limit error, not a stack overflow,
  // and is released at the end of the render (no reference cycle outlives it).
  LimitErrorOf("{% set ns = namespace() %}{% set ns.me = ns %}{{ ns }}");
  LimitErrorOf(
      "{% set ns = namespace(v=[]) %}{% for i in range(2000) %}{% set ns.v = [ns.v] %}{% endfor %}"
      "{{ ns.v|tojson }}");
  LimitErrorOf(
      "{% set ns = namespace(v=[]) %}{% for i in range(2000) %}{% set ns.v = [ns.v] %}{% endfor %}"
      "{{ ns.v }}");
  EXPECT_EQ(JinjaTemplate::Parse("{% set ns = namespace() %}{% set ns.me = ns %}{{ ns.me.me is "
                                 "defined }}")
                .Render({}),
            "True");
}

TEST(JinjaLimits, NoFileOrEnvironmentAccess) {
  // Nothing in the global namespace reaches files, the environment or Python.
  const JinjaTemplate t = JinjaTemplate::Parse(
      "{{ environ is defined }} {{ open is defined }} {{ os is defined }} {{ self is defined }} "
      "{{ ''.__class__ is defined }} {{ lipsum is defined }}");
  EXPECT_EQ(t.Render({}), "False False False False False False");
}

}  // namespace
}  // namespace orcd::testing
