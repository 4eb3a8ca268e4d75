#include "host/gguf/gguf_file.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "host/common/status.h"
#include "host/gguf/ggml_type_traits.h"

namespace orcd {
namespace {

constexpr uint32_t kMaxNesting = 8;        // arrays of arrays of ...
constexpr uint64_t kMaxKeyLength = 65535;  // GGUF spec limit for keys
constexpr uint64_t kMaxTensorName = 65535;

// Sequential reader over the mapping: every read is checked against the end.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> bytes, const std::string& source)
      : bytes_(bytes), source_(source) {}

  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return bytes_.size() - pos_; }

  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(ErrorCode::kModelInvalid, source_ + ": " + what + " (at byte " +
                                              std::to_string(pos_) + " of " +
                                              std::to_string(bytes_.size()) + ")");
  }

  void Need(uint64_t n, const std::string& what) const {
    if (n > remaining()) {
      Fail("truncated: " + what + " needs " + std::to_string(n) + " bytes, " +
           std::to_string(remaining()) + " left");
    }
  }

  template <typename T>
  T Read(const std::string& what) {
    Need(sizeof(T), what);
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  std::string_view ReadString(const std::string& what, uint64_t max_len) {
    const uint64_t len = Read<uint64_t>(what + " length");
    if (len > max_len) Fail(what + " length " + std::to_string(len) + " exceeds the limit");
    Need(len, what);
    std::string_view s(reinterpret_cast<const char*>(bytes_.data() + pos_), len);
    pos_ += len;
    return s;
  }

 private:
  std::span<const uint8_t> bytes_;
  const std::string& source_;
  uint64_t pos_ = 0;
};

// Smallest encoding of one value of `type` (arrays: type + count).
uint64_t MinEncodedSize(GgufType type) {
  switch (type) {
    case GgufType::kUint8:
    case GgufType::kInt8:
    case GgufType::kBool:
      return 1;
    case GgufType::kUint16:
    case GgufType::kInt16:
      return 2;
    case GgufType::kUint32:
    case GgufType::kInt32:
    case GgufType::kFloat32:
      return 4;
    case GgufType::kUint64:
    case GgufType::kInt64:
    case GgufType::kFloat64:
    case GgufType::kString:
      return 8;
    case GgufType::kArray:
      return 12;
  }
  return 1;
}

GgufValue ReadValue(Cursor& c, GgufType type, const std::string& key, uint32_t depth) {
  GgufValue v;
  v.type = type;
  switch (type) {
    case GgufType::kUint8:
      v.u = c.Read<uint8_t>(key);
      break;
    case GgufType::kInt8:
      v.i = c.Read<int8_t>(key);
      break;
    case GgufType::kUint16:
      v.u = c.Read<uint16_t>(key);
      break;
    case GgufType::kInt16:
      v.i = c.Read<int16_t>(key);
      break;
    case GgufType::kUint32:
      v.u = c.Read<uint32_t>(key);
      break;
    case GgufType::kInt32:
      v.i = c.Read<int32_t>(key);
      break;
    case GgufType::kUint64:
      v.u = c.Read<uint64_t>(key);
      break;
    case GgufType::kInt64:
      v.i = c.Read<int64_t>(key);
      break;
    case GgufType::kFloat32:
      v.f = c.Read<float>(key);
      break;
    case GgufType::kFloat64:
      v.f = c.Read<double>(key);
      break;
    case GgufType::kBool: {
      const uint8_t b = c.Read<uint8_t>(key);
      if (b > 1) c.Fail("metadata '" + key + "': bool byte is " + std::to_string(b));
      v.u = b;
      break;
    }
    case GgufType::kString:
      v.str = c.ReadString("metadata '" + key + "' string", std::numeric_limits<uint64_t>::max());
      break;
    case GgufType::kArray: {
      if (depth >= kMaxNesting) c.Fail("metadata '" + key + "': arrays nested too deeply");
      const uint32_t raw = c.Read<uint32_t>("metadata '" + key + "' array type");
      if (!IsValidGgufType(raw)) {
        c.Fail("metadata '" + key + "': unknown array element type " + std::to_string(raw));
      }
      v.element_type = static_cast<GgufType>(raw);
      const uint64_t count = c.Read<uint64_t>("metadata '" + key + "' array length");
      // Reject counts the remaining bytes cannot possibly hold before allocating.
      if (count > c.remaining() / MinEncodedSize(v.element_type)) {
        c.Fail("metadata '" + key + "': array length " + std::to_string(count) +
               " does not fit in the file");
      }
      v.items.reserve(count);
      for (uint64_t k = 0; k < count; ++k) {
        v.items.push_back(ReadValue(c, v.element_type, key, depth + 1));
      }
      break;
    }
  }
  return v;
}

uint64_t AlignUp(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

}  // namespace

std::string GgufTensorInfo::ShapeString() const {
  std::string s;
  for (uint32_t d = 0; d < n_dims; ++d) {
    if (d) s += 'x';
    s += std::to_string(ne[d]);
  }
  return s;
}

std::unique_ptr<GgufFile> GgufFile::Open(const std::filesystem::path& path) {
  std::unique_ptr<GgufFile> f(new GgufFile());
  f->mapping_ = std::make_unique<MappedFile>(path);
  f->bytes_ = f->mapping_->bytes();
  f->source_name_ = path.string();
  f->ParseAll();
  return f;
}

std::unique_ptr<GgufFile> GgufFile::Parse(std::span<const uint8_t> bytes, std::string source_name) {
  std::unique_ptr<GgufFile> f(new GgufFile());
  f->bytes_ = bytes;
  f->source_name_ = std::move(source_name);
  f->ParseAll();
  return f;
}

void GgufFile::ParseAll() {
  Cursor c(bytes_, source_name_);
  if (bytes_.size() < 4) c.Fail("not a GGUF file: shorter than the 4-byte magic");
  const uint32_t magic = c.Read<uint32_t>("magic");
  if (magic != kGgufMagic) c.Fail("not a GGUF file: bad magic");
  version_ = c.Read<uint32_t>("version");
  if (version_ == 1) c.Fail("GGUF version 1 is not supported (only 2 and 3)");
  if (version_ != 2 && version_ != 3) {
    if (__builtin_bswap32(version_) == 2 || __builtin_bswap32(version_) == 3) {
      c.Fail("big-endian GGUF files are not supported");
    }
    c.Fail("unsupported GGUF version " + std::to_string(version_));
  }
  const uint64_t n_tensors = c.Read<uint64_t>("tensor count");
  const uint64_t n_kv = c.Read<uint64_t>("metadata count");
  // Each KV needs at least a key length, a type and a 1-byte value; each
  // tensor info at least a name length, n_dims, one dim, type and offset.
  if (n_kv > c.remaining() / 13) {
    c.Fail("metadata count " + std::to_string(n_kv) + " does not fit in the file");
  }
  if (n_tensors > c.remaining() / 32) {
    c.Fail("tensor count " + std::to_string(n_tensors) + " does not fit in the file");
  }

  metadata_.reserve(n_kv);
  for (uint64_t k = 0; k < n_kv; ++k) {
    const std::string key(c.ReadString("metadata key #" + std::to_string(k), kMaxKeyLength));
    if (key.empty()) c.Fail("metadata key #" + std::to_string(k) + " is empty");
    const uint32_t raw = c.Read<uint32_t>("metadata '" + key + "' type");
    if (!IsValidGgufType(raw)) {
      c.Fail("metadata '" + key + "': unknown value type " + std::to_string(raw));
    }
    GgufValue value = ReadValue(c, static_cast<GgufType>(raw), key, 0);
    if (metadata_index_.count(key)) c.Fail("duplicate metadata key '" + key + "'");
    metadata_index_.emplace(key, metadata_.size());
    metadata_.emplace_back(key, std::move(value));
  }

  if (const GgufValue* a = Find("general.alignment")) {
    if (a->type != GgufType::kUint32) {
      c.Fail("general.alignment must be UINT32, found " + std::string(GgufTypeName(a->type)));
    }
    if (a->u == 0 || (a->u & (a->u - 1)) != 0) {
      c.Fail("general.alignment " + std::to_string(a->u) + " is not a power of two");
    }
    alignment_ = a->u;
  }

  tensors_.reserve(n_tensors);
  for (uint64_t k = 0; k < n_tensors; ++k) {
    GgufTensorInfo t;
    t.name = std::string(c.ReadString("tensor #" + std::to_string(k) + " name", kMaxTensorName));
    const std::string what = "tensor '" + t.name + "'";
    if (t.name.empty()) c.Fail("tensor #" + std::to_string(k) + " has an empty name");
    t.n_dims = c.Read<uint32_t>(what + " n_dims");
    if (t.n_dims == 0 || t.n_dims > kGgufMaxDims) {
      c.Fail(what + ": n_dims " + std::to_string(t.n_dims) + " is outside 1..4");
    }
    uint64_t elements = 1;
    for (uint32_t d = 0; d < t.n_dims; ++d) {
      const uint64_t ne = c.Read<uint64_t>(what + " dimension");
      if (ne == 0 || ne > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
          elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / ne) {
        c.Fail(what + ": dimension " + std::to_string(d) + " = " + std::to_string(ne) +
               " is zero or overflows");
      }
      elements *= ne;
      t.ne[d] = static_cast<int64_t>(ne);
    }
    t.type = c.Read<uint32_t>(what + " type");
    const GgmlTypeTraits* traits = FindGgmlType(t.type);
    if (traits == nullptr) c.Fail(what + ": unknown ggml type " + std::to_string(t.type));
    const std::optional<uint64_t> row = GgmlRowBytes(*traits, static_cast<uint64_t>(t.ne[0]));
    if (!row) {
      c.Fail(what + ": row length " + std::to_string(t.ne[0]) + " is not a multiple of the " +
             std::string(traits->name) + " block size " + std::to_string(traits->block_elems));
    }
    const uint64_t rows = elements / static_cast<uint64_t>(t.ne[0]);
    if (*row != 0 && rows > std::numeric_limits<uint64_t>::max() / *row) {
      c.Fail(what + ": byte size overflows");
    }
    t.n_bytes = *row * rows;
    t.offset = c.Read<uint64_t>(what + " offset");
    if (t.offset % alignment_ != 0) {
      c.Fail(what + ": offset " + std::to_string(t.offset) + " is not aligned to " +
             std::to_string(alignment_));
    }
    if (tensor_index_.count(t.name)) c.Fail("duplicate " + what);
    tensor_index_.emplace(t.name, tensors_.size());
    tensors_.push_back(std::move(t));
  }

  data_offset_ = AlignUp(c.pos(), alignment_);
  if (tensors_.empty()) return;  // vocab-only files may end without a data section
  if (data_offset_ > bytes_.size()) {
    c.Fail("truncated: the data section starts at " + std::to_string(data_offset_) +
           " past the end of the file");
  }
  const uint64_t data_size = bytes_.size() - data_offset_;
  // Every tensor lies inside the data section and no two overlap.
  std::vector<const GgufTensorInfo*> by_offset;
  for (GgufTensorInfo& t : tensors_) {
    if (t.offset > data_size || t.n_bytes > data_size - t.offset) {
      c.Fail("truncated: tensor '" + t.name + "' (" + std::to_string(t.n_bytes) +
             " bytes at data offset " + std::to_string(t.offset) +
             ") extends past the end of the file");
    }
    t.data = bytes_.data() + data_offset_ + t.offset;
    by_offset.push_back(&t);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const auto* a, const auto* b) { return a->offset < b->offset; });
  for (size_t k = 1; k < by_offset.size(); ++k) {
    const GgufTensorInfo* prev = by_offset[k - 1];
    if (by_offset[k]->offset < prev->offset + prev->n_bytes) {
      c.Fail("tensors '" + prev->name + "' and '" + by_offset[k]->name + "' overlap");
    }
  }
}

const GgufValue* GgufFile::Find(std::string_view key) const {
  auto it = metadata_index_.find(key);
  return it == metadata_index_.end() ? nullptr : &metadata_[it->second].second;
}

std::optional<uint64_t> GgufFile::GetU64(std::string_view key) const {
  const GgufValue* v = Find(key);
  return v ? v->AsU64() : std::nullopt;
}
std::optional<int64_t> GgufFile::GetI64(std::string_view key) const {
  const GgufValue* v = Find(key);
  return v ? v->AsI64() : std::nullopt;
}
std::optional<double> GgufFile::GetF64(std::string_view key) const {
  const GgufValue* v = Find(key);
  return v ? v->AsF64() : std::nullopt;
}
std::optional<bool> GgufFile::GetBool(std::string_view key) const {
  const GgufValue* v = Find(key);
  return v ? v->AsBool() : std::nullopt;
}
std::optional<std::string_view> GgufFile::GetString(std::string_view key) const {
  const GgufValue* v = Find(key);
  return v ? v->AsString() : std::nullopt;
}

std::optional<std::vector<std::string_view>> GgufFile::GetStringArray(std::string_view key) const {
  const GgufValue* v = Find(key);
  if (!v || v->type != GgufType::kArray || v->element_type != GgufType::kString)
    return std::nullopt;
  std::vector<std::string_view> out;
  out.reserve(v->items.size());
  for (const GgufValue& item : v->items) out.push_back(item.str);
  return out;
}

std::optional<std::vector<float>> GgufFile::GetF32Array(std::string_view key) const {
  const GgufValue* v = Find(key);
  if (!v || v->type != GgufType::kArray ||
      (v->element_type != GgufType::kFloat32 && v->element_type != GgufType::kFloat64)) {
    return std::nullopt;
  }
  std::vector<float> out;
  out.reserve(v->items.size());
  for (const GgufValue& item : v->items) out.push_back(static_cast<float>(item.f));
  return out;
}

std::optional<std::vector<int64_t>> GgufFile::GetIntArray(std::string_view key) const {
  const GgufValue* v = Find(key);
  if (!v || v->type != GgufType::kArray) return std::nullopt;
  std::vector<int64_t> out;
  out.reserve(v->items.size());
  for (const GgufValue& item : v->items) {
    std::optional<int64_t> x = item.AsI64();
    if (!x) return std::nullopt;
    out.push_back(*x);
  }
  return out;
}

std::string_view GgufFile::architecture() const {
  return GetString("general.architecture").value_or("");
}

const GgufTensorInfo* GgufFile::FindTensor(std::string_view name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

}  // namespace orcd
