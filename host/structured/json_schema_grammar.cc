#include "host/structured/json_schema_grammar.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include "host/common/json_escape.h"
#include "host/common/status.h"
#include "host/structured/compact_json.h"
#include "host/structured/json_grammar_pieces.h"
#include "host/structured/json_schema_keywords.h"
#include "host/structured/pattern_grammar.h"

namespace orcd::structured {
namespace {

using Poco::Dynamic::Var;
using Object = Poco::JSON::Object::Ptr;
using Array = Poco::JSON::Array::Ptr;
using Sequence = GrammarBuilder::Sequence;
using Symbol = GrammarBuilder::Symbol;

bool Has(const Object& o, const std::string& key) { return o->has(key); }

class Compiler {
 public:
  Compiler(GrammarBuilder& b, const Var& root) : b_(b), root_(root), pieces_(b) {}

  Symbol Compile() { return Schema(root_, 0); }

 private:
  static constexpr int kMaxDepth = 64;

  // The instances of schema `s`, as one symbol.
  Symbol Schema(const Var& s, int depth) {
    if (depth > kMaxDepth) Refuse("$ref", "nests deeper than 64 schemas");
    if (s.isBoolean()) {
      if (!s.convert<bool>()) Refuse("false", "admits no instance");
      return pieces_.Value();
    }
    if (!IsObject(s)) Refuse("(schema)", "must be an object or a boolean");
    const Object o = s.extract<Object>();
    for (const auto& [key, value] : *o) {
      (void)value;
      if (Annotations().count(key) || KeywordTypes().count(key)) continue;
      if (key == "type" || key == "enum" || key == "const" || key == "anyOf" || key == "oneOf" ||
          key == "allOf" || key == "$ref")
        continue;
      Refuse(key, "is not supported");
    }
    if (Has(o, "$ref")) return Ref(o->getValue<std::string>("$ref"), depth);
    if (Has(o, "const") || Has(o, "enum")) return Enum(o);
    if (Has(o, "anyOf") || Has(o, "oneOf")) return AnyOf(o, depth);
    if (Has(o, "allOf")) return Schema(MergeAllOf(o, depth), depth + 1);

    std::vector<std::string> types;
    if (Has(o, "type")) {
      const Var t = o->get("type");
      if (t.isString()) {
        types.push_back(t.extract<std::string>());
      } else if (IsArray(t)) {
        for (const Var& e : *t.extract<Array>()) types.push_back(e.convert<std::string>());
      } else {
        Refuse("type", "must be a string or an array of strings");
      }
    } else {
      types = AllTypes();
    }
    for (const std::string& t : types) {
      if (std::find(AllTypes().begin(), AllTypes().end(), t) == AllTypes().end())
        Refuse("type", "'" + t + "' is not a JSON type");
    }
    const bool number = std::find(types.begin(), types.end(), "number") != types.end();
    std::vector<Sequence> alternatives;
    for (const std::string& t : types) {
      if (t == "integer" && number && !(Has(o, "minimum") || Has(o, "maximum"))) continue;
      alternatives.push_back({Typed(o, t, depth)});
    }
    if (alternatives.empty()) Refuse("type", "admits no instance");
    return alternatives.size() == 1 ? alternatives[0][0]
                                    : GrammarBuilder::Ref(b_.AddRule(alternatives));
  }

  Symbol Typed(const Object& o, const std::string& type, int depth) {
    if (type == "object") return ObjectOf(o, depth);
    if (type == "array") return ArrayOf(o, depth);
    if (type == "string") return StringOf(o);
    if (type == "integer") return IntegerOf(o);
    if (type == "number") {
      if (Has(o, "minimum") || Has(o, "maximum"))
        Refuse(Has(o, "minimum") ? "minimum" : "maximum", "is supported on integers only");
      return pieces_.Number();
    }
    if (type == "boolean") return pieces_.Boolean();
    return pieces_.Null();
  }

  Symbol Ref(const std::string& ref, int depth) {
    if (const auto it = refs_.find(ref); it != refs_.end()) return GrammarBuilder::Ref(it->second);
    const Var target = Resolve(ref);
    const uint32_t rule = b_.Declare();
    refs_[ref] = rule;  // before compiling the target: it may refer to itself
    b_.Define(rule, {{Schema(target, depth + 1)}});
    return GrammarBuilder::Ref(rule);
  }

  Var Resolve(const std::string& ref) const {
    if (ref == "#") return root_;
    if (ref.rfind("#/", 0) != 0)
      Refuse("$ref", "'" + ref + "': only references within the schema (#/...) are supported");
    Var at = root_;
    size_t begin = 2;
    while (begin <= ref.size()) {
      const size_t end = std::min(ref.find('/', begin), ref.size());
      std::string part = ref.substr(begin, end - begin);
      for (size_t p; (p = part.find("~1")) != std::string::npos;) part.replace(p, 2, "/");
      for (size_t p; (p = part.find("~0")) != std::string::npos;) part.replace(p, 2, "~");
      if (!IsObject(at) || !at.extract<Object>()->has(part))
        Refuse("$ref", "'" + ref + "' points at nothing in the schema");
      at = at.extract<Object>()->get(part);
      begin = end + 1;
    }
    return at;
  }

  Symbol Enum(const Object& o) {
    for (const auto& [key, value] : *o) {
      (void)value;
      if (key != "enum" && key != "const" && key != "type" && !Annotations().count(key))
        Refuse(key, "beside enum or const is not supported");
    }
    std::vector<Var> values;
    if (Has(o, "const")) {
      values.push_back(o->get("const"));
    } else {
      const Var e = o->get("enum");
      if (!IsArray(e)) Refuse("enum", "must be an array");
      for (const Var& v : *e.extract<Array>()) values.push_back(v);
    }
    std::vector<Sequence> alternatives;
    std::set<std::string> seen;
    for (const Var& v : values) {
      if (Has(o, "type")) {
        const Var t = o->get("type");
        bool ok = false;
        if (t.isString()) ok = OfType(v, t.extract<std::string>());
        if (IsArray(t))
          for (const Var& each : *t.extract<Array>())
            ok = ok || OfType(v, each.convert<std::string>());
        if (!ok) continue;
      }
      const std::string text = CompactJson(v);
      if (seen.insert(text).second) alternatives.push_back(b_.Literal(text));
    }
    if (alternatives.empty()) Refuse(Has(o, "const") ? "const" : "enum", "admits no instance");
    return GrammarBuilder::Ref(b_.AddRule(alternatives));
  }

  Symbol AnyOf(const Object& o, int depth) {
    const std::string key = Has(o, "anyOf") ? "anyOf" : "oneOf";
    for (const auto& [k, value] : *o) {
      (void)value;
      if (k != key && !Annotations().count(k)) Refuse(key, "beside '" + k + "' is not supported");
    }
    const Var list = o->get(key);
    if (!IsArray(list) || list.extract<Array>()->size() == 0)
      Refuse(key, "must be a non-empty array");
    // oneOf is taken as anyOf: an instance valid under two branches is not
    // refused (the branches of schemas in practice do not overlap).
    std::vector<Sequence> alternatives;
    for (const Var& sub : *list.extract<Array>()) alternatives.push_back({Schema(sub, depth + 1)});
    return GrammarBuilder::Ref(b_.AddRule(alternatives));
  }

  // allOf of object schemas: one object schema with every member's
  // properties and required names (additionalProperties false when any says so).
  Var MergeAllOf(const Object& o, int depth) {
    Poco::JSON::Object::Ptr merged = new Poco::JSON::Object(Poco::JSON_PRESERVE_KEY_ORDER);
    Poco::JSON::Object::Ptr properties = new Poco::JSON::Object(Poco::JSON_PRESERVE_KEY_ORDER);
    Poco::JSON::Array::Ptr required = new Poco::JSON::Array;
    bool closed = false;
    std::vector<Object> parts;
    const Var list = o->get("allOf");
    if (!IsArray(list)) Refuse("allOf", "must be an array");
    for (const Var& sub : *list.extract<Array>()) {
      Var part = sub;
      for (int hops = 0; IsObject(part) && part.extract<Object>()->has("$ref"); ++hops) {
        if (hops > kMaxDepth) Refuse("$ref", "loops");
        part = Resolve(part.extract<Object>()->getValue<std::string>("$ref"));
      }
      if (!IsObject(part)) Refuse("allOf", "takes object schemas only");
      parts.push_back(part.extract<Object>());
    }
    Poco::JSON::Object::Ptr self = new Poco::JSON::Object(*o);
    self->remove("allOf");
    parts.push_back(self);
    for (const Object& p : parts) {
      for (const auto& [key, value] : *p) {
        if (Annotations().count(key)) continue;
        if (key == "type") {
          if (!(value.isString() && value.extract<std::string>() == "object"))
            Refuse("allOf", "takes object schemas only");
        } else if (key == "properties" && IsObject(value)) {
          const Object list = value.extract<Object>();
          for (const std::string& name : list->getNames()) properties->set(name, list->get(name));
        } else if (key == "required" && IsArray(value)) {
          for (const Var& name : *value.extract<Array>()) required->add(name);
        } else if (key == "additionalProperties" && value.isBoolean()) {
          closed = closed || !value.convert<bool>();
        } else {
          Refuse("allOf",
                 "takes object schemas of properties, required and "
                 "additionalProperties: false only (found '" +
                     key + "')");
        }
      }
    }
    (void)depth;
    merged->set("type", "object");
    merged->set("properties", properties);
    merged->set("required", required);
    if (closed) merged->set("additionalProperties", false);
    return merged;
  }

  Symbol ObjectOf(const Object& o, int depth) {
    struct Property {
      std::string name;
      Var schema;
      bool required = false;
    };
    std::vector<Property> props;
    if (Has(o, "properties")) {
      const Var p = o->get("properties");
      if (!IsObject(p)) Refuse("properties", "must be an object");
      const Object list = p.extract<Object>();
      for (const std::string& name : list->getNames())
        props.push_back({name, list->get(name), false});
    }
    if (Has(o, "required")) {
      const Var r = o->get("required");
      if (!IsArray(r)) Refuse("required", "must be an array");
      for (const Var& v : *r.extract<Array>()) {
        const std::string name = v.convert<std::string>();
        auto it = std::find_if(props.begin(), props.end(),
                               [&](const Property& p) { return p.name == name; });
        if (it == props.end()) {
          props.push_back({name, Var(true), true});
        } else {
          it->required = true;
        }
      }
    }
    // What follows the listed properties: more members of the
    // additionalProperties schema (any value when absent or true), or none.
    std::optional<Symbol> extra_value;
    if (!Has(o, "additionalProperties")) {
      extra_value = pieces_.Value();
    } else {
      const Var a = o->get("additionalProperties");
      if (!(a.isBoolean() && !a.convert<bool>())) extra_value = Schema(a, depth + 1);
    }
    Sequence member_extra;
    if (extra_value) member_extra = {pieces_.String(), b_.Byte(':'), *extra_value};

    const size_t n = props.size();
    std::vector<Sequence> member(n);
    for (size_t i = 0; i < n; ++i) {
      member[i] = b_.Literal(JsonQuote(props[i].name) + ":");
      member[i].push_back(Schema(props[i].schema, depth + 1));
    }
    // rest[i]: properties i.. after at least one member, each with its comma.
    std::vector<Symbol> rest(n + 1);
    {
      Sequence tail;
      if (extra_value) {
        Sequence comma_extra = {b_.Byte(',')};
        Append(comma_extra, member_extra);
        tail.push_back(b_.Star(comma_extra));
      }
      rest[n] = GrammarBuilder::Ref(b_.AddRule({tail}));
    }
    for (size_t i = n; i-- > 0;) {
      Sequence with = {b_.Byte(',')};
      Append(with, member[i]);
      with.push_back(rest[i + 1]);
      std::vector<Sequence> alternatives = {with};
      if (!props[i].required) alternatives.push_back({rest[i + 1]});
      rest[i] = GrammarBuilder::Ref(b_.AddRule(alternatives));
    }
    // start[i]: the first member present is property i or later.
    Symbol start;
    {
      std::vector<Sequence> alternatives = {{}};
      if (extra_value) {
        Sequence first = member_extra;
        first.push_back(rest[n]);
        alternatives.push_back(first);
      }
      start = GrammarBuilder::Ref(b_.AddRule(alternatives));
    }
    for (size_t i = n; i-- > 0;) {
      Sequence first = member[i];
      first.push_back(rest[i + 1]);
      std::vector<Sequence> alternatives = {first};
      if (!props[i].required) alternatives.push_back({start});
      start = GrammarBuilder::Ref(b_.AddRule(alternatives));
    }
    return GrammarBuilder::Ref(b_.AddRule({{b_.Byte('{'), start, b_.Byte('}')}}));
  }

  Symbol ArrayOf(const Object& o, int depth) {
    std::vector<Var> prefix;
    std::optional<Var> rest = Var(true);
    const auto add_prefix = [&](const Var& list, const std::string& key) {
      if (!IsArray(list)) Refuse(key, "must be an array");
      for (const Var& v : *list.extract<Array>()) prefix.push_back(v);
    };
    if (Has(o, "prefixItems")) {
      add_prefix(o->get("prefixItems"), "prefixItems");
      if (Has(o, "items")) rest = o->get("items");
      if (Has(o, "additionalItems"))
        Refuse("additionalItems", "beside prefixItems is not supported");
    } else if (Has(o, "items") && IsArray(o->get("items"))) {
      add_prefix(o->get("items"), "items");  // draft 4's tuple form
      if (Has(o, "additionalItems")) rest = o->get("additionalItems");
    } else if (Has(o, "items")) {
      rest = o->get("items");
    }
    if (rest && rest->isBoolean() && !rest->convert<bool>()) rest.reset();
    const int64_t min = Has(o, "minItems") ? CountField(o, "minItems") : 0;
    int64_t max = Has(o, "maxItems") ? CountField(o, "maxItems") : -1;
    const auto k = static_cast<int64_t>(prefix.size());
    if (!rest && (max < 0 || max > k)) max = k;
    if (max >= 0 && min > max) Refuse("minItems", "exceeds the items the array may hold");

    std::optional<Symbol> rest_symbol;
    if (rest && (max < 0 || max > k)) rest_symbol = Schema(*rest, depth + 1);
    // tail(i): after i elements, the rest with their commas.
    Symbol tail;
    {
      const int64_t from = std::max(min - k, int64_t{0});
      Sequence comma_rest = {b_.Byte(',')};
      std::vector<Sequence> alternatives;
      if (rest_symbol) {
        comma_rest.push_back(*rest_symbol);
        alternatives.push_back({b_.Repeat(comma_rest, from, max < 0 ? -1 : max - k)});
      } else {
        alternatives.push_back({});
      }
      tail = GrammarBuilder::Ref(b_.AddRule(alternatives));  // after k elements (k >= 1)
    }
    for (int64_t i = k - 1; i >= 1; --i) {  // after i elements: element i+1 is prefix[i]
      std::vector<Sequence> alternatives;
      if (max < 0 || i < max)
        alternatives.push_back(
            {b_.Byte(','), Schema(prefix[static_cast<size_t>(i)], depth + 1), tail});
      if (i >= min) alternatives.push_back({});
      tail = GrammarBuilder::Ref(b_.AddRule(alternatives));
    }
    std::vector<Sequence> body;
    if (min == 0) body.push_back({});
    if (k > 0 && max != 0) {
      body.push_back({Schema(prefix[0], depth + 1), tail});
    } else if (rest_symbol && max != 0) {
      Sequence comma_rest = {b_.Byte(','), *rest_symbol};
      body.push_back({*rest_symbol, b_.Repeat(comma_rest, std::max<int64_t>(min - 1, 0),
                                              max < 0 ? -1 : max - 1)});
    }
    if (body.empty()) Refuse("minItems", "exceeds the items the array may hold");
    const Symbol inside = GrammarBuilder::Ref(b_.AddRule(body));
    return GrammarBuilder::Ref(b_.AddRule({{b_.Byte('['), inside, b_.Byte(']')}}));
  }

  Symbol StringOf(const Object& o) {
    if (Has(o, "format")) {
      for (const char* k : {"minLength", "maxLength", "pattern"})
        if (Has(o, k)) Refuse(k, "beside format is not supported");
      return pieces_.Format(o->getValue<std::string>("format"));
    }
    if (Has(o, "pattern")) {
      for (const char* k : {"minLength", "maxLength"})
        if (Has(o, k)) Refuse(k, "beside pattern is not supported");
      const Var pattern = o->get("pattern");
      if (!pattern.isString()) Refuse("pattern", "must be a string");
      return GrammarBuilder::Ref(b_.AddRule(
          {{b_.Byte('"'), AddPattern(b_, pieces_, pattern.extract<std::string>()), b_.Byte('"')}}));
    }
    const int64_t min = Has(o, "minLength") ? CountField(o, "minLength") : 0;
    const int64_t max = Has(o, "maxLength") ? CountField(o, "maxLength") : -1;
    if (max >= 0 && min > max) Refuse("minLength", "exceeds maxLength");
    if (min == 0 && max < 0) return pieces_.String();
    return GrammarBuilder::Ref(
        b_.AddRule({{b_.Byte('"'), b_.Repeat({pieces_.StringChar()}, min, max), b_.Byte('"')}}));
  }

  Symbol IntegerOf(const Object& o) {
    std::optional<int64_t> lo, hi;
    const auto bound = [&](const char* key, bool upper) -> std::optional<int64_t> {
      if (!Has(o, key)) return std::nullopt;
      const Var v = o->get(key);
      if (v.isString() || v.isBoolean() || !v.isNumeric()) Refuse(key, "must be a number");
      const double d = v.convert<double>();
      if (!(std::fabs(d) < 1e18)) Refuse(key, "must be within +-1e18");
      return static_cast<int64_t>(upper ? std::floor(d) : std::ceil(d));
    };
    lo = bound("minimum", false);
    hi = bound("maximum", true);
    if (lo && hi && *lo > *hi) Refuse("minimum", "exceeds maximum");
    return pieces_.IntegerRange(lo, hi);
  }

  GrammarBuilder& b_;
  Var root_;
  JsonGrammarPieces pieces_;
  std::map<std::string, uint32_t> refs_;
};

}  // namespace

GrammarBuilder::Symbol AddJsonSchema(GrammarBuilder& builder, const Poco::Dynamic::Var& schema) {
  return Compiler(builder, schema).Compile();
}

std::shared_ptr<const Grammar> JsonSchemaGrammar(const Poco::Dynamic::Var& schema) {
  GrammarBuilder b;
  const uint32_t root = b.AddRule({{AddJsonSchema(b, schema)}});
  return std::make_shared<const Grammar>(b.Build(root));
}

std::shared_ptr<const Grammar> JsonObjectGrammar() {
  static const std::shared_ptr<const Grammar> grammar = [] {
    GrammarBuilder b;
    JsonGrammarPieces pieces(b);
    const uint32_t root = b.AddRule({{pieces.AnyObject()}});
    return std::make_shared<const Grammar>(b.Build(root));
  }();
  return grammar;
}

}  // namespace orcd::structured
