#include "host/gguf/gguf_value.h"

#include <cstdio>
#include <limits>

namespace orcd {

std::string_view GgufTypeName(GgufType type) {
  switch (type) {
    case GgufType::kUint8:
      return "UINT8";
    case GgufType::kInt8:
      return "INT8";
    case GgufType::kUint16:
      return "UINT16";
    case GgufType::kInt16:
      return "INT16";
    case GgufType::kUint32:
      return "UINT32";
    case GgufType::kInt32:
      return "INT32";
    case GgufType::kFloat32:
      return "FLOAT32";
    case GgufType::kBool:
      return "BOOL";
    case GgufType::kString:
      return "STRING";
    case GgufType::kArray:
      return "ARRAY";
    case GgufType::kUint64:
      return "UINT64";
    case GgufType::kInt64:
      return "INT64";
    case GgufType::kFloat64:
      return "FLOAT64";
  }
  return "?";
}

bool IsValidGgufType(uint32_t raw) { return raw <= static_cast<uint32_t>(GgufType::kFloat64); }

bool GgufValue::IsInteger() const {
  switch (type) {
    case GgufType::kUint8:
    case GgufType::kInt8:
    case GgufType::kUint16:
    case GgufType::kInt16:
    case GgufType::kUint32:
    case GgufType::kInt32:
    case GgufType::kUint64:
    case GgufType::kInt64:
      return true;
    default:
      return false;
  }
}

static bool IsSigned(GgufType t) {
  return t == GgufType::kInt8 || t == GgufType::kInt16 || t == GgufType::kInt32 ||
         t == GgufType::kInt64;
}

std::optional<uint64_t> GgufValue::AsU64() const {
  if (!IsInteger()) return std::nullopt;
  if (IsSigned(type)) {
    if (i < 0) return std::nullopt;
    return static_cast<uint64_t>(i);
  }
  return u;
}

std::optional<int64_t> GgufValue::AsI64() const {
  if (!IsInteger()) return std::nullopt;
  if (IsSigned(type)) return i;
  if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return static_cast<int64_t>(u);
}

std::optional<double> GgufValue::AsF64() const {
  if (type == GgufType::kFloat32 || type == GgufType::kFloat64) return f;
  if (!IsInteger()) return std::nullopt;
  return IsSigned(type) ? static_cast<double>(i) : static_cast<double>(u);
}

std::optional<bool> GgufValue::AsBool() const {
  if (type != GgufType::kBool) return std::nullopt;
  return u != 0;
}

std::optional<std::string_view> GgufValue::AsString() const {
  if (type != GgufType::kString) return std::nullopt;
  return str;
}

std::string GgufValue::ToDisplayString(size_t max_items) const {
  switch (type) {
    case GgufType::kString: {
      std::string s(str.substr(0, 120));
      if (str.size() > 120) s += "...";
      return "\"" + s + "\"";
    }
    case GgufType::kBool:
      return u ? "true" : "false";
    case GgufType::kFloat32:
    case GgufType::kFloat64: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", f);
      return buf;
    }
    case GgufType::kArray: {
      std::string s = "[" + std::string(GgufTypeName(element_type)) + " x " +
                      std::to_string(items.size()) + "]";
      if (items.size() <= max_items) {
        s += " {";
        for (size_t k = 0; k < items.size(); ++k) {
          if (k) s += ", ";
          s += items[k].ToDisplayString(max_items);
        }
        s += "}";
      }
      return s;
    }
    default:
      return IsSigned(type) ? std::to_string(i) : std::to_string(u);
  }
}

}  // namespace orcd
