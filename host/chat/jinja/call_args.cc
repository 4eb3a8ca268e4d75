#include "host/chat/jinja/call_args.h"

#include <algorithm>

#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {

std::optional<Value> ArgReader::Take(size_t pos, std::string_view name) {
  std::optional<Value> found;
  if (pos < args_.positional.size()) {
    found = args_.positional[pos];
    positional_used_ = std::max(positional_used_, pos + 1);
  }
  for (const auto& [key, value] : args_.keywords) {
    if (key != name) continue;
    if (found) {
      throw TemplateError(ErrorKind::kType, function_ + "() got multiple values for argument '" +
                                                std::string(name) + "'");
    }
    found = value;
    keywords_used_.emplace_back(name);
  }
  return found;
}

Value ArgReader::Take(size_t pos, std::string_view name, Value fallback) {
  std::optional<Value> v = Take(pos, name);
  return v ? std::move(*v) : std::move(fallback);
}

Value ArgReader::Require(size_t pos, std::string_view name) {
  std::optional<Value> v = Take(pos, name);
  if (!v) {
    throw TemplateError(ErrorKind::kType,
                        function_ + "() missing required argument '" + std::string(name) + "'");
  }
  return std::move(*v);
}

std::string ArgReader::TakeString(size_t pos, std::string_view name, std::string fallback) {
  std::optional<std::string> s = TakeOptionalString(pos, name);
  return s ? std::move(*s) : std::move(fallback);
}

std::optional<std::string> ArgReader::TakeOptionalString(size_t pos, std::string_view name) {
  std::optional<Value> v = Take(pos, name);
  if (!v || v->is_none()) return std::nullopt;
  if (!v->is_string()) {
    throw TemplateError(ErrorKind::kType, function_ + "() argument '" + std::string(name) +
                                              "' must be str, not " + TypeName(*v));
  }
  return v->AsString();
}

int64_t ArgReader::TakeInt(size_t pos, std::string_view name, int64_t fallback) {
  std::optional<Value> v = Take(pos, name);
  if (!v || v->is_none()) return fallback;
  if (!v->is_integral()) {
    throw TemplateError(ErrorKind::kType, function_ + "() argument '" + std::string(name) +
                                              "' must be int, not " + TypeName(*v));
  }
  return v->AsInt();
}

bool ArgReader::TakeBool(size_t pos, std::string_view name, bool fallback) {
  std::optional<Value> v = Take(pos, name);
  return v ? Truthy(*v) : fallback;
}

ValueList ArgReader::Rest(size_t pos) {
  ValueList rest;
  for (size_t i = pos; i < args_.positional.size(); ++i) rest.push_back(args_.positional[i]);
  positional_used_ = std::max(positional_used_, args_.positional.size());
  return rest;
}

std::vector<std::pair<std::string, Value>> ArgReader::RestKeywords() {
  std::vector<std::pair<std::string, Value>> rest;
  for (const auto& [key, value] : args_.keywords) {
    if (std::find(keywords_used_.begin(), keywords_used_.end(), key) != keywords_used_.end())
      continue;
    rest.emplace_back(key, value);
    keywords_used_.push_back(key);
  }
  return rest;
}

void ArgReader::Finish() const {
  if (args_.positional.size() > positional_used_) {
    throw TemplateError(ErrorKind::kType, function_ + "() takes at most " +
                                              std::to_string(positional_used_) +
                                              " positional argument(s) (" +
                                              std::to_string(args_.positional.size()) + " given)");
  }
  for (const auto& [key, value] : args_.keywords) {
    if (std::find(keywords_used_.begin(), keywords_used_.end(), key) == keywords_used_.end()) {
      throw TemplateError(ErrorKind::kType,
                          function_ + "() got an unexpected keyword argument '" + key + "'");
    }
  }
}

}  // namespace orcd::jinja
