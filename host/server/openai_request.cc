#include "host/server/openai_request.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <cmath>

#include "host/server/request_validation.h"

namespace orcd {
namespace {

using Poco::Dynamic::Var;

bool Present(const Poco::JSON::Object::Ptr& o, const char* k) {
  return o->has(k) && !o->get(k).isEmpty();
}

double Num(const Poco::JSON::Object::Ptr& o, const char* k, double lo, double hi, double dflt) {
  if (!Present(o, k)) return dflt;
  const Var& v = o->get(k);
  if (!v.isNumeric() || v.isString()) FailField(k, "must be a number");
  const double x = v.convert<double>();
  if (!std::isfinite(x) || x < lo || x > hi) {
    FailField(k, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  }
  return x;
}

}  // namespace

std::variant<OpenAiRequest, ValidationError> ParseOpenAiRequest(const std::string& body, bool chat,
                                                                const RequestLimits& limits) {
  try {
    Poco::JSON::Object::Ptr o;
    try {
      o = Poco::JSON::Parser().parse(body).extract<Poco::JSON::Object::Ptr>();
    } catch (const Poco::Exception& e) {
      throw InvalidRequest{{"", "body is not a valid JSON object: " + e.displayText()}};
    } catch (const std::exception&) {
      throw InvalidRequest{{"", "body is not a JSON object"}};
    }
    OpenAiRequest r;
    r.chat = chat;
    if (Present(o, "model")) r.model = o->get("model").toString();
    if (Present(o, "stream")) {
      if (!o->get("stream").isBoolean()) FailField("stream", "must be a boolean");
      r.stream = o->getValue<bool>("stream");
    }
    if (Present(o, "n") && o->get("n").convert<int64_t>() != 1) FailField("n", "must be 1");
    if (chat) {
      auto msgs = o->getArray("messages");
      if (!msgs || msgs->size() == 0) FailField("messages", "must be a non-empty array");
      for (size_t k = 0; k < msgs->size(); ++k) {
        const std::string field = "messages[" + std::to_string(k) + "]";
        auto m = msgs->getObject(static_cast<unsigned>(k));
        if (!m || !m->has("role") || !m->get("role").isString())
          FailField(field, "needs a string role");
        ChatMessage cm;
        cm.role = m->getValue<std::string>("role");
        if (m->has("content") && m->get("content").isString()) {
          cm.content = m->getValue<std::string>("content");
        } else if (auto parts = m->getArray("content")) {
          // Content parts: only text parts are supported.
          for (size_t p = 0; p < parts->size(); ++p) {
            auto part = parts->getObject(static_cast<unsigned>(p));
            if (!part || part->optValue<std::string>("type", "") != "text") {
              FailField(field + ".content", "supports only text parts");
            }
            cm.content += part->optValue<std::string>("text", "");
          }
        }
        r.messages.push_back(std::move(cm));
      }
    } else {
      if (!Present(o, "prompt") || !o->get("prompt").isString())
        FailField("prompt", "must be a string");
      r.prompt = o->getValue<std::string>("prompt");
      if (r.prompt.empty()) FailField("prompt", "must not be empty");
    }
    // OpenAI's defaults: 16 for completions, "until done" for chat (bounded here).
    r.max_tokens = chat ? limits.max_tokens : std::min<int64_t>(16, limits.max_tokens);
    for (const char* key : {"max_tokens", "max_completion_tokens"}) {
      if (!Present(o, key)) continue;
      const Var& v = o->get(key);
      if (!v.isInteger() || v.convert<int64_t>() < 1 || v.convert<int64_t>() > limits.max_tokens) {
        FailField(key, "must be an integer between 1 and " + std::to_string(limits.max_tokens));
      }
      r.max_tokens = v.convert<int64_t>();
    }
    r.sampling.temperature = Num(o, "temperature", 0, 2, 1.0);
    r.sampling.top_p = Num(o, "top_p", 0, 1, 1.0);
    if (Present(o, "seed")) {
      const Var& v = o->get("seed");
      if (!v.isInteger()) FailField("seed", "must be an integer");
      r.sampling.seed = v.convert<uint64_t>();
      r.sampling.seed_from_request = true;
    } else {
      r.sampling.seed = DrawSeed();
    }
    if (Present(o, "stop")) {
      const Var& v = o->get("stop");
      if (v.isString()) {
        r.stop.push_back(v.convert<std::string>());
      } else if (auto arr = o->getArray("stop")) {
        if (static_cast<int64_t>(arr->size()) > limits.max_stop_strings) {
          FailField("stop",
                    "must hold at most " + std::to_string(limits.max_stop_strings) + " strings");
        }
        for (size_t k = 0; k < arr->size(); ++k)
          r.stop.push_back(arr->get(static_cast<unsigned>(k)).toString());
      } else {
        FailField("stop", "must be a string or an array of strings");
      }
    }
    return r;
  } catch (const InvalidRequest& e) {
    return e.error;
  }
}

}  // namespace orcd
