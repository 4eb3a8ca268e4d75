#include "host/server/tokenize_handlers.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <vector>

#include "host/common/json_escape.h"
#include "host/server/http_util.h"
#include "host/server/request_validation.h"
#include "host/tokenizer/streaming_detokenizer.h"
#include "host/tokenizer/tokenizer.h"
#include "host/tokenizer/utf8.h"

namespace orcd {
namespace {

using Poco::Net::HTTPResponse;

bool OptionalBool(const Poco::JSON::Object::Ptr& o, const char* key, bool fallback) {
  return o->has(key) && !o->get(key).isEmpty() ? BoolField(o->get(key), key) : fallback;
}

// A piece as llama-server gives it: a JSON string when its bytes are valid
// UTF-8, else the array of byte values (a fragment of a character).
std::string PieceJson(const std::string& piece) {
  if (IsValidUtf8(piece)) return "\"" + JsonEscape(piece) + "\"";
  std::string out = "[";
  for (size_t i = 0; i < piece.size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(static_cast<unsigned char>(piece[i]));
  }
  return out + "]";
}

class TokenizeHandler : public Poco::Net::HTTPRequestHandler {
 public:
  TokenizeHandler(WorkerState& state, bool detokenize) : state_(state), detokenize_(detokenize) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    const Tokenizer* tokenizer = state_.model_loaded() ? state_.service->tokenizer() : nullptr;
    if (tokenizer == nullptr) {
      response.set("Retry-After", "1");
      SendError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "NOT_READY",
                state_.model_loaded() ? "the model has no tokenizer" : "the model is still loading",
                !state_.model_loaded());
      return;
    }
    const std::optional<std::string> body = ReadBody(request, response);
    if (!body) return;
    try {
      const Poco::JSON::Object::Ptr o = ParseJsonObject(*body);
      SendJson(response, HTTPResponse::HTTP_OK,
               detokenize_ ? Detokenize(*tokenizer, o) : Tokenize(*tokenizer, o));
    } catch (const InvalidRequest& e) {
      SendError(response, HTTPResponse::HTTP_BAD_REQUEST, "INVALID_REQUEST", e.error.message, false,
                e.error.field);
    } catch (const Poco::Exception& e) {  // a type the checks did not foresee
      SendError(response, HTTPResponse::HTTP_BAD_REQUEST, "INVALID_REQUEST",
                "invalid request: " + e.displayText().substr(0, 200), false);
    }
  }

 private:
  static std::string Tokenize(const Tokenizer& tokenizer, const Poco::JSON::Object::Ptr& o) {
    if (!o->has("content") || !o->get("content").isString())
      FailField("content", "must be a string");
    const std::string content = o->getValue<std::string>("content");
    const bool add_special = OptionalBool(o, "add_special", false);
    const bool parse_special = OptionalBool(o, "parse_special", true);
    const bool with_pieces = OptionalBool(o, "with_pieces", false);
    const std::vector<TokenId> ids = tokenizer.Encode(content, add_special, parse_special);
    std::string out = "{\"tokens\":[";
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i > 0) out += ",";
      out += with_pieces ? "{\"id\":" + std::to_string(ids[i]) +
                               ",\"piece\":" + PieceJson(tokenizer.TokenToPiece(ids[i])) + "}"
                         : std::to_string(ids[i]);
    }
    return out + "]}";
  }

  static std::string Detokenize(const Tokenizer& tokenizer, const Poco::JSON::Object::Ptr& o) {
    const Poco::JSON::Array::Ptr tokens = o->has("tokens") ? o->getArray("tokens") : nullptr;
    if (!tokens) FailField("tokens", "must be an array of token ids");
    std::vector<TokenId> ids;
    ids.reserve(tokens->size());
    const int64_t vocab = static_cast<int64_t>(tokenizer.vocab_size());
    for (size_t i = 0; i < tokens->size(); ++i) {
      const std::string field = "tokens[" + std::to_string(i) + "]";
      ids.push_back(static_cast<TokenId>(
          IntegerField(tokens->get(static_cast<unsigned>(i)), field, 0, vocab - 1)));
    }
    DetokenizerOptions options;
    options.render_special = true;  // the caller asked for these ids' text, control tokens too
    return "{\"content\":\"" + JsonEscape(DecodeTokens(tokenizer, ids, options)) + "\"}";
  }

  WorkerState& state_;
  bool detokenize_;
};

}  // namespace

Poco::Net::HTTPRequestHandler* CreateTokenizeHandler(WorkerState& state, const std::string& path) {
  if (path == "/tokenize") return new TokenizeHandler(state, false);
  if (path == "/detokenize") return new TokenizeHandler(state, true);
  return nullptr;
}

}  // namespace orcd
