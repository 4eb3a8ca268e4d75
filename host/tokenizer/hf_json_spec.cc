#include "host/tokenizer/hf_json_spec.h"

#include <Poco/Dynamic/Var.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "host/common/status.h"
#include "host/tokenizer/pre_tokenizer_table.h"

namespace orcd {
namespace {

using Poco::Dynamic::Var;
using Poco::JSON::Array;
using Poco::JSON::Object;

class SpecReader {
 public:
  explicit SpecReader(const std::string& source) : source_(source) {}

  [[noreturn]] void Fail(ErrorCode code, const std::string& what) const {
    throw Error(code, source_ + ": " + what);
  }

  Object::Ptr ObjectOf(const Var& v) const {
    return v.type() == typeid(Object::Ptr) ? v.extract<Object::Ptr>() : nullptr;
  }
  Array::Ptr ArrayOf(const Var& v) const {
    return v.type() == typeid(Array::Ptr) ? v.extract<Array::Ptr>() : nullptr;
  }
  std::string StringField(const Object::Ptr& o, const std::string& key,
                          const std::string& where) const {
    const Var v = o->get(key);
    if (!v.isString()) Fail(ErrorCode::kModelInvalid, where + "." + key + " is not a string");
    return v.extract<std::string>();
  }
  bool BoolField(const Object::Ptr& o, const std::string& key, bool fallback) const {
    const Var v = o->get(key);
    return v.isEmpty() || v.type() != typeid(bool) ? fallback : v.extract<bool>();
  }
  // The component's "type", or "" for JSON null / absent.
  std::string TypeOf(const Var& v, const std::string& where) const {
    if (v.isEmpty()) return "";
    const Object::Ptr o = ObjectOf(v);
    if (!o) Fail(ErrorCode::kModelInvalid, where + " is not an object");
    return StringField(o, "type", where);
  }

  void ReadModel(const Object::Ptr& root, HfTokenizerSpec& spec) const {
    const Object::Ptr model = ObjectOf(root->get("model"));
    if (!model) Fail(ErrorCode::kModelInvalid, "no \"model\" object");
    const std::string type = model->has("type") ? StringField(model, "type", "model") : "BPE";
    if (type != "BPE") Fail(ErrorCode::kUnsupported, "model type '" + type + "' (only BPE)");
    if (BoolField(model, "byte_fallback", false)) {
      Fail(ErrorCode::kUnsupported, "BPE byte_fallback (SentencePiece-style tokenizer.json)");
    }
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
      const Var v = model->get(key);
      if (!v.isEmpty() && !(v.isString() && v.extract<std::string>().empty())) {
        Fail(ErrorCode::kUnsupported, std::string("BPE ") + key);
      }
    }
    spec.ignore_merges = BoolField(model, "ignore_merges", false);

    const Object::Ptr vocab = ObjectOf(model->get("vocab"));
    if (!vocab) Fail(ErrorCode::kModelInvalid, "model.vocab is not an object");
    spec.vocab.reserve(vocab->size());
    for (const auto& [text, id] : *vocab) {
      if (!id.isInteger())
        Fail(ErrorCode::kModelInvalid, "model.vocab[\"" + text + "\"] is not an id");
      spec.vocab.emplace_back(id.convert<TokenId>(), text);
    }

    const Array::Ptr merges = ArrayOf(model->get("merges"));
    if (!merges) Fail(ErrorCode::kModelInvalid, "model.merges is not an array");
    spec.merges.reserve(merges->size());
    for (size_t i = 0; i < merges->size(); ++i) spec.merges.push_back(ReadMerge(merges->get(i), i));
  }

  // "left right" (the classic form) or ["left", "right"].
  std::pair<std::string, std::string> ReadMerge(const Var& v, size_t index) const {
    if (v.isString()) {
      const std::string s = v.extract<std::string>();
      const size_t space = s.find(' ');
      if (space != std::string::npos && s.find(' ', space + 1) == std::string::npos) {
        return {s.substr(0, space), s.substr(space + 1)};
      }
    } else if (const Array::Ptr pair = ArrayOf(v);
               pair && pair->size() == 2 && pair->get(0).isString() && pair->get(1).isString()) {
      return {pair->getElement<std::string>(0), pair->getElement<std::string>(1)};
    }
    Fail(ErrorCode::kModelInvalid, "model.merges[" + std::to_string(index) + "] is not a merge");
  }

  void ReadNormalizer(const Var& v, HfTokenizerSpec& spec) const {
    const std::string type = TypeOf(v, "normalizer");
    if (type.empty()) return;
    if (type == "NFC") {
      spec.nfc = true;
    } else if (type == "Sequence") {
      const Array::Ptr steps = ArrayOf(ObjectOf(v)->get("normalizers"));
      if (!steps) Fail(ErrorCode::kModelInvalid, "normalizer.normalizers is not an array");
      for (size_t i = 0; i < steps->size(); ++i) ReadNormalizer(steps->get(i), spec);
    } else {
      Fail(ErrorCode::kUnsupported, "normalizer '" + type + "' (supported: NFC, Sequence)");
    }
  }

  // Flattens Sequence pre-tokenizers into their steps.
  void CollectPreTokenizers(const Var& v, std::vector<Object::Ptr>& steps) const {
    const std::string type = TypeOf(v, "pre_tokenizer");
    if (type.empty()) return;
    const Object::Ptr o = ObjectOf(v);
    if (type != "Sequence") {
      steps.push_back(o);
      return;
    }
    const Array::Ptr inner = ArrayOf(o->get("pretokenizers"));
    if (!inner) Fail(ErrorCode::kModelInvalid, "pre_tokenizer.pretokenizers is not an array");
    for (size_t i = 0; i < inner->size(); ++i) CollectPreTokenizers(inner->get(i), steps);
  }

  void ReadPreTokenizer(const Var& v, HfTokenizerSpec& spec) const {
    std::vector<Object::Ptr> steps;
    CollectPreTokenizers(v, steps);
    if (steps.empty() || StringField(steps.back(), "type", "pre_tokenizer") != "ByteLevel") {
      Fail(ErrorCode::kUnsupported,
           "pre_tokenizer without a final ByteLevel step (only byte-level BPE)");
    }
    for (size_t i = 0; i + 1 < steps.size(); ++i)
      spec.split_patterns.push_back(SplitPattern(steps[i]));
    const Object::Ptr byte_level = steps.back();
    spec.add_prefix_space = BoolField(byte_level, "add_prefix_space", false);
    if (spec.add_prefix_space && steps.size() > 1) {
      Fail(ErrorCode::kUnsupported, "ByteLevel add_prefix_space after a Split step");
    }
    if (BoolField(byte_level, "use_regex", true)) {
      spec.split_patterns.emplace_back(FindPreTokenizer("gpt-2").pattern);
    }
  }

  std::string SplitPattern(const Object::Ptr& step) const {
    const std::string type = StringField(step, "type", "pre_tokenizer");
    if (type != "Split") {
      Fail(ErrorCode::kUnsupported,
           "pre_tokenizer '" + type + "' (supported: Split, ByteLevel, Sequence)");
    }
    const std::string behavior =
        step->has("behavior") ? StringField(step, "behavior", "Split") : "Isolated";
    if (behavior != "Isolated" || BoolField(step, "invert", false)) {
      Fail(ErrorCode::kUnsupported, "Split behavior '" + behavior + "' / invert (only Isolated)");
    }
    const Object::Ptr pattern = ObjectOf(step->get("pattern"));
    if (pattern && pattern->has("Regex")) return StringField(pattern, "Regex", "Split.pattern");
    if (pattern && pattern->has("String")) {
      return "\\Q" + StringField(pattern, "String", "Split.pattern") + "\\E";  // literal text
    }
    Fail(ErrorCode::kModelInvalid, "Split.pattern has neither Regex nor String");
  }

  void ReadAddedTokens(const Var& v, HfTokenizerSpec& spec) const {
    if (v.isEmpty()) return;
    const Array::Ptr tokens = ArrayOf(v);
    if (!tokens) Fail(ErrorCode::kModelInvalid, "added_tokens is not an array");
    for (size_t i = 0; i < tokens->size(); ++i) {
      const Object::Ptr t = ObjectOf(tokens->get(i));
      if (!t || !t->get("id").isInteger()) {
        Fail(ErrorCode::kModelInvalid, "added_tokens[" + std::to_string(i) + "] has no id");
      }
      spec.added_tokens.push_back(
          {t->get("id").convert<TokenId>(),
           StringField(t, "content", "added_tokens[" + std::to_string(i) + "]"),
           BoolField(t, "special", false), BoolField(t, "lstrip", false),
           BoolField(t, "rstrip", false)});
    }
  }

 private:
  const std::string& source_;
};

}  // namespace

HfTokenizerSpec ParseHfTokenizerJson(const std::string& json_text, const std::string& source) {
  const SpecReader reader(source);
  Var root;
  try {
    Poco::JSON::Parser parser;
    root = parser.parse(json_text);
  } catch (const Poco::Exception& e) {
    reader.Fail(ErrorCode::kModelInvalid, "not valid JSON: " + e.displayText());
  }
  const Object::Ptr object = reader.ObjectOf(root);
  if (!object) reader.Fail(ErrorCode::kModelInvalid, "the top level is not a JSON object");
  HfTokenizerSpec spec;
  reader.ReadModel(object, spec);
  reader.ReadNormalizer(object->get("normalizer"), spec);
  reader.ReadPreTokenizer(object->get("pre_tokenizer"), spec);
  reader.ReadAddedTokens(object->get("added_tokens"), spec);
  return spec;
}

}  // namespace orcd
