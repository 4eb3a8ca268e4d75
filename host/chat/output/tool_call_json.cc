#include "host/chat/output/tool_call_json.h"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>

#include <sstream>

namespace orcd {
namespace {

enum class Match { kNeedMore, kYes, kNo };

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A cursor over the head of a call object, {"name": "f", "arguments": <start>.
class HeadCursor {
 public:
  explicit HeadCursor(std::string_view s) : s_(s) {}
  void SkipSpace() {
    while (p_ < s_.size() && IsSpace(s_[p_])) ++p_;
  }
  // The literal next (after spaces), or kNeedMore when the text ends inside it.
  Match Expect(std::string_view literal) {
    SkipSpace();
    const std::string_view rest = s_.substr(p_);
    const size_t n = std::min(rest.size(), literal.size());
    if (rest.substr(0, n) != literal.substr(0, n)) return Match::kNo;
    if (n < literal.size()) return Match::kNeedMore;
    p_ += n;
    return Match::kYes;
  }
  // A complete string literal, decoded.
  Match String(std::string& out) {
    SkipSpace();
    if (p_ >= s_.size()) return Match::kNeedMore;
    if (s_[p_] != '"') return Match::kNo;
    bool escape = false;
    for (size_t i = p_ + 1; i < s_.size(); ++i) {
      if (escape) {
        escape = false;
      } else if (s_[i] == '\\') {
        escape = true;
      } else if (s_[i] == '"') {
        const std::optional<std::string> decoded = DecodeJsonString(s_.substr(p_, i + 1 - p_));
        if (!decoded) return Match::kNo;
        out = *decoded;
        p_ = i + 1;
        return Match::kYes;
      }
    }
    return Match::kNeedMore;
  }
  size_t position() const { return p_; }
  bool AtEnd() {
    SkipSpace();
    return p_ >= s_.size();
  }
  char Peek() const { return s_[p_]; }

 private:
  std::string_view s_;
  size_t p_ = 0;
};

// Either of two keys; kNeedMore while the text is a prefix of one of them.
Match ExpectKey(HeadCursor& c, std::string_view a, std::string_view b) {
  HeadCursor ca = c;
  HeadCursor cb = c;
  const Match ma = ca.Expect(a);
  const Match mb = cb.Expect(b);
  if (ma == Match::kYes) c = ca;
  if (mb == Match::kYes) c = cb;
  if (ma == Match::kYes || mb == Match::kYes) return Match::kYes;
  return ma == Match::kNeedMore || mb == Match::kNeedMore ? Match::kNeedMore : Match::kNo;
}

Match MatchHead(std::string_view s, std::string& name, size_t& arguments_at) {
  HeadCursor c(s);
  for (const Match m : {c.Expect("{"), c.Expect("\"name\""), c.Expect(":")}) {
    if (m != Match::kYes) return m;
  }
  if (const Match m = c.String(name); m != Match::kYes) return m;
  if (name.empty()) return Match::kNo;
  if (const Match m = c.Expect(","); m != Match::kYes) return m;
  if (const Match m = ExpectKey(c, "\"arguments\"", "\"parameters\""); m != Match::kYes) return m;
  if (const Match m = c.Expect(":"); m != Match::kYes) return m;
  if (c.AtEnd()) return Match::kNeedMore;
  // Stream objects only: a string (JSON inside a string) is decoded whole.
  if (c.Peek() != '{') return Match::kNo;
  arguments_at = c.position();
  return Match::kYes;
}

}  // namespace

size_t ToolCallJsonStream::Push(std::string_view text, ChatOutputSink& sink) {
  if (state_ == State::kDone || state_ == State::kFailed) return 0;
  const size_t taken = object_.Feed(text);
  const std::string_view part = text.substr(0, taken);
  raw_.append(part);
  if (object_.failed() || (object_.started() && object_.first() != '{')) {
    state_ = State::kFailed;
    return taken;
  }
  if (state_ == State::kHead) {
    TryHead(sink);
  } else if (state_ == State::kArguments) {
    StreamArguments(part, sink);
  }
  if (object_.done()) {
    if (state_ == State::kHead || state_ == State::kWhole) EmitWhole(sink);
    if (state_ != State::kFailed) state_ = State::kDone;
  }
  return taken;
}

void ToolCallJsonStream::TryHead(ChatOutputSink& sink) {
  std::string name;
  size_t at = 0;
  switch (MatchHead(raw_, name, at)) {
    case Match::kNeedMore:
      return;
    case Match::kNo:
      state_ = State::kWhole;
      return;
    case Match::kYes:
      break;
  }
  sink.ToolCallStart(name);
  started_ = true;
  state_ = State::kArguments;
  StreamArguments(std::string_view(raw_).substr(at), sink);
}

void ToolCallJsonStream::StreamArguments(std::string_view text, ChatOutputSink& sink) {
  if (arguments_.done()) return;  // the rest of the object (e.g. an "id" key) is not arguments
  const size_t n = arguments_.Feed(text);
  if (n > 0) sink.ToolCallArguments(text.substr(0, n));
}

void ToolCallJsonStream::EmitWhole(ChatOutputSink& sink) {
  try {
    Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(/*preserveObjectOrder=*/true));
    const Poco::Dynamic::Var v = parser.parse(raw_);
    const Poco::JSON::Object::Ptr o = v.extract<Poco::JSON::Object::Ptr>();
    if (!o->has("name") || !o->get("name").isString()) {
      state_ = State::kFailed;
      return;
    }
    const std::string name = o->getValue<std::string>("name");
    const char* key = o->has("arguments") ? "arguments" : "parameters";
    std::string arguments = "{}";
    if (o->has(key)) {
      const Poco::Dynamic::Var a = o->get(key);
      if (a.isString()) {
        arguments = a.convert<std::string>();
      } else {
        std::ostringstream out;
        Poco::JSON::Stringifier::condense(a, out);
        arguments = out.str();
      }
    }
    if (name.empty()) {
      state_ = State::kFailed;
      return;
    }
    sink.ToolCallStart(name);
    sink.ToolCallArguments(arguments);
    started_ = true;
  } catch (const Poco::Exception&) {
    state_ = State::kFailed;
  }
}

void ToolCallJsonStream::Finish() {
  if (!started_ && state_ != State::kDone) state_ = State::kFailed;
}

}  // namespace orcd
