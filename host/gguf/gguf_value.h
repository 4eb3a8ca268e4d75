// A GGUF metadata value: a scalar, a string (a view into the mapped file) or
// an array of values (arrays may nest).
#ifndef ORCD_HOST_GGUF_GGUF_VALUE_H_
#define ORCD_HOST_GGUF_GGUF_VALUE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orcd {

// Numbering from the GGUF specification.
enum class GgufType : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};

std::string_view GgufTypeName(GgufType type);
bool IsValidGgufType(uint32_t raw);

struct GgufValue {
  GgufType type = GgufType::kUint8;
  // Scalars: exactly one of these is meaningful, chosen by `type`.
  uint64_t u = 0;                            // unsigned integers and bool
  int64_t i = 0;                             // signed integers
  double f = 0;                              // floats
  std::string_view str;                      // kString
  GgufType element_type = GgufType::kUint8;  // kArray
  std::vector<GgufValue> items;              // kArray

  bool IsInteger() const;
  // Integer conversions succeed only when the value is an integer in range.
  std::optional<uint64_t> AsU64() const;
  std::optional<int64_t> AsI64() const;
  // Any float or integer.
  std::optional<double> AsF64() const;
  std::optional<bool> AsBool() const;
  std::optional<std::string_view> AsString() const;

  // Short human rendering for tools: scalars in full, arrays summarised.
  std::string ToDisplayString(size_t max_items = 8) const;
};

}  // namespace orcd

#endif  // ORCD_HOST_GGUF_GGUF_VALUE_H_
