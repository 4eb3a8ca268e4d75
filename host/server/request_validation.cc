#include "host/server/request_validation.h"

#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include <cmath>
#include <random>

#include "host/common/status.h"
#include "host/structured/grammar_cache.h"

namespace orcd {
namespace {

using Poco::Dynamic::Var;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Compares decimal digit strings without leading zeros.
bool DigitsGreater(std::string_view digits, std::string_view limit) {
  if (digits.size() != limit.size()) return digits.size() > limit.size();
  return digits > limit;
}

std::string Range(int64_t lo, int64_t hi) {
  return "must be an integer between " + std::to_string(lo) + " and " + std::to_string(hi);
}

}  // namespace

std::string WidenOutOfRangeIntegers(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  bool in_string = false;
  for (size_t i = 0; i < json.size();) {
    const char c = json[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < json.size()) out += json[++i];
      if (c == '"') in_string = false;
      ++i;
      continue;
    }
    if (c == '"') in_string = true;
    if (c != '-' && !IsDigit(c)) {
      out += c;
      ++i;
      continue;
    }
    // A number token: sign, digits, then maybe a fraction or an exponent.
    size_t end = i + (c == '-' ? 1 : 0);
    while (end < json.size() && IsDigit(json[end])) ++end;
    std::string_view digits(json.data() + i + (c == '-' ? 1 : 0), end - i - (c == '-' ? 1 : 0));
    const bool integer =
        end >= json.size() || (json[end] != '.' && json[end] != 'e' && json[end] != 'E');
    while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
    out.append(json, i, end - i);
    if (integer && !digits.empty() &&
        DigitsGreater(digits, c == '-' ? "9223372036854775808" : "18446744073709551615")) {
      out += ".0";
    }
    i = end;
  }
  return out;
}

Poco::JSON::Object::Ptr ParseJsonObject(const std::string& body) {
  Var parsed;
  try {
    Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(/*preserveObjectOrder=*/true));
    parsed = parser.parse(WidenOutOfRangeIntegers(body));
  } catch (const Poco::Exception& e) {
    FailField("", "body is not valid JSON: " + e.displayText().substr(0, 200));
  }
  if (parsed.type() != typeid(Poco::JSON::Object::Ptr)) FailField("", "body must be a JSON object");
  return parsed.extract<Poco::JSON::Object::Ptr>();
}

double NumberField(const Var& v, const std::string& field, double lo, double hi, bool lo_open) {
  if (v.isBoolean() || !v.isNumeric() || v.isString()) FailField(field, "must be a number");
  const double x = v.convert<double>();
  if (!std::isfinite(x) || x > hi || (lo_open ? x <= lo : x < lo)) {
    std::string range =
        (lo_open ? "(" : "[") + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    FailField(field, "must be in " + range);
  }
  return x;
}

int64_t IntegerField(const Var& v, const std::string& field, int64_t lo, int64_t hi) {
  if (v.isBoolean() || !v.isInteger() || v.isString()) FailField(field, Range(lo, hi));
  if (v.isSigned()) {
    const int64_t x = v.convert<int64_t>();
    if (x < lo || x > hi) FailField(field, Range(lo, hi));
    return x;
  }
  const uint64_t u = v.convert<uint64_t>();
  if (hi < 0 || u > static_cast<uint64_t>(hi)) FailField(field, Range(lo, hi));
  return static_cast<int64_t>(u);
}

uint64_t SeedField(const Var& v, const std::string& field) {
  const char* kRange = "must be an integer between 0 and 18446744073709551615";
  if (v.isBoolean() || !v.isInteger() || v.isString()) FailField(field, kRange);
  if (v.isSigned()) {
    const int64_t x = v.convert<int64_t>();
    if (x < 0) FailField(field, kRange);
    return static_cast<uint64_t>(x);
  }
  return v.convert<uint64_t>();
}

std::string StringField(const Var& v, const std::string& field) {
  if (!v.isString()) FailField(field, "must be a string");
  return v.convert<std::string>();
}

bool BoolField(const Var& v, const std::string& field) {
  if (!v.isBoolean()) FailField(field, "must be a boolean");
  return v.convert<bool>();
}

uint64_t DrawSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

std::shared_ptr<const structured::Grammar> SchemaGrammar(const Poco::Dynamic::Var& schema,
                                                         const std::string& field) {
  try {
    return structured::CachedJsonSchemaGrammar(schema);
  } catch (const Error& e) {
    FailField(field, e.what());
  }
}

}  // namespace orcd
