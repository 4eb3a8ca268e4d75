#include "host/gguf/gguf_writer.h"

#include <cstring>
#include <fstream>

#include "host/common/status.h"
#include "host/gguf/ggml_type_traits.h"

namespace orcd {
namespace {

template <typename T>
void Put(std::vector<uint8_t>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

void PutString(std::vector<uint8_t>& out, std::string_view s) {
  Put<uint64_t>(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

void PutPayload(std::vector<uint8_t>& out, const GgufValue& v) {
  switch (v.type) {
    case GgufType::kUint8:
      Put<uint8_t>(out, static_cast<uint8_t>(v.u));
      break;
    case GgufType::kInt8:
      Put<int8_t>(out, static_cast<int8_t>(v.i));
      break;
    case GgufType::kUint16:
      Put<uint16_t>(out, static_cast<uint16_t>(v.u));
      break;
    case GgufType::kInt16:
      Put<int16_t>(out, static_cast<int16_t>(v.i));
      break;
    case GgufType::kUint32:
      Put<uint32_t>(out, static_cast<uint32_t>(v.u));
      break;
    case GgufType::kInt32:
      Put<int32_t>(out, static_cast<int32_t>(v.i));
      break;
    case GgufType::kUint64:
      Put<uint64_t>(out, v.u);
      break;
    case GgufType::kInt64:
      Put<int64_t>(out, v.i);
      break;
    case GgufType::kFloat32:
      Put<float>(out, static_cast<float>(v.f));
      break;
    case GgufType::kFloat64:
      Put<double>(out, v.f);
      break;
    case GgufType::kBool:
      Put<uint8_t>(out, v.u ? 1 : 0);
      break;
    case GgufType::kString:
      PutString(out, v.str);
      break;
    case GgufType::kArray:
      Put<uint32_t>(out, static_cast<uint32_t>(v.element_type));
      Put<uint64_t>(out, v.items.size());
      for (const GgufValue& item : v.items) PutPayload(out, item);
      break;
  }
}

GgufValue Scalar(GgufType type) {
  GgufValue v;
  v.type = type;
  return v;
}

uint64_t AlignUp(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

}  // namespace

void GgufWriter::Set(std::string_view key, const GgufValue& value) {
  std::vector<uint8_t> encoded;
  Put<uint32_t>(encoded, static_cast<uint32_t>(value.type));
  PutPayload(encoded, value);
  for (auto& [k, bytes] : kv_) {
    if (k == key) {
      bytes = std::move(encoded);
      return;
    }
  }
  kv_.emplace_back(std::string(key), std::move(encoded));
}

void GgufWriter::SetU32(std::string_view key, uint32_t v) {
  GgufValue x = Scalar(GgufType::kUint32);
  x.u = v;
  Set(key, x);
  if (key == "general.alignment") alignment_ = v;
}
void GgufWriter::SetI32(std::string_view key, int32_t v) {
  GgufValue x = Scalar(GgufType::kInt32);
  x.i = v;
  Set(key, x);
}
void GgufWriter::SetU64(std::string_view key, uint64_t v) {
  GgufValue x = Scalar(GgufType::kUint64);
  x.u = v;
  Set(key, x);
}
void GgufWriter::SetF32(std::string_view key, float v) {
  GgufValue x = Scalar(GgufType::kFloat32);
  x.f = v;
  Set(key, x);
}
void GgufWriter::SetBool(std::string_view key, bool v) {
  GgufValue x = Scalar(GgufType::kBool);
  x.u = v ? 1 : 0;
  Set(key, x);
}
void GgufWriter::SetString(std::string_view key, std::string_view v) {
  GgufValue x = Scalar(GgufType::kString);
  x.str = v;
  Set(key, x);
}
void GgufWriter::SetStringArray(std::string_view key, const std::vector<std::string>& v) {
  GgufValue x = Scalar(GgufType::kArray);
  x.element_type = GgufType::kString;
  for (const std::string& s : v) {
    GgufValue item = Scalar(GgufType::kString);
    item.str = s;
    x.items.push_back(item);
  }
  Set(key, x);
}
void GgufWriter::SetF32Array(std::string_view key, const std::vector<float>& v) {
  GgufValue x = Scalar(GgufType::kArray);
  x.element_type = GgufType::kFloat32;
  for (float f : v) {
    GgufValue item = Scalar(GgufType::kFloat32);
    item.f = f;
    x.items.push_back(item);
  }
  Set(key, x);
}
void GgufWriter::SetI32Array(std::string_view key, const std::vector<int32_t>& v) {
  GgufValue x = Scalar(GgufType::kArray);
  x.element_type = GgufType::kInt32;
  for (int32_t i : v) {
    GgufValue item = Scalar(GgufType::kInt32);
    item.i = i;
    x.items.push_back(item);
  }
  Set(key, x);
}

void GgufWriter::AddTensor(std::string_view name, uint32_t ggml_type,
                           const std::vector<int64_t>& ne, std::vector<uint8_t> data) {
  const GgmlTypeTraits* traits = FindGgmlType(ggml_type);
  if (traits == nullptr || ne.empty() || ne.size() > 4) {
    throw Error(ErrorCode::kInvalidArgument,
                "AddTensor " + std::string(name) + ": bad type or shape");
  }
  uint64_t rows = 1;
  for (size_t d = 1; d < ne.size(); ++d) rows *= static_cast<uint64_t>(ne[d]);
  const std::optional<uint64_t> row = GgmlRowBytes(*traits, static_cast<uint64_t>(ne[0]));
  if (!row || *row * rows != data.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                "AddTensor " + std::string(name) + ": data size does not match type and shape");
  }
  tensors_.push_back({std::string(name), ggml_type, ne, std::move(data)});
}

std::vector<uint8_t> GgufWriter::SerializeHead() const {
  std::vector<uint8_t> out;
  Put<uint32_t>(out, 0x46554747);
  Put<uint32_t>(out, version_);
  Put<uint64_t>(out, tensors_.size());
  Put<uint64_t>(out, kv_.size());
  for (const auto& [key, encoded] : kv_) {
    PutString(out, key);
    out.insert(out.end(), encoded.begin(), encoded.end());
  }
  uint64_t offset = 0;
  for (const Tensor& t : tensors_) {
    PutString(out, t.name);
    Put<uint32_t>(out, static_cast<uint32_t>(t.ne.size()));
    for (int64_t n : t.ne) Put<uint64_t>(out, static_cast<uint64_t>(n));
    Put<uint32_t>(out, t.type);
    Put<uint64_t>(out, offset);
    offset = AlignUp(offset + t.data.size(), alignment_);
  }
  if (tensors_.empty()) return out;
  out.resize(AlignUp(out.size(), alignment_), 0);
  return out;
}

std::vector<uint8_t> GgufWriter::Serialize() const {
  std::vector<uint8_t> out = SerializeHead();
  for (const Tensor& t : tensors_) {
    out.insert(out.end(), t.data.begin(), t.data.end());
    out.resize(AlignUp(out.size(), alignment_), 0);
  }
  return out;
}

// Streams the tensors after the head: a real-size model (gpt-oss-20b, ~12 GB)
// is not copied a second time in memory.
void GgufWriter::WriteFile(const std::filesystem::path& path) const {
  const std::vector<uint8_t> head = SerializeHead();
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(head.data()), static_cast<std::streamsize>(head.size()));
  const std::vector<char> zeros(static_cast<size_t>(alignment_), 0);
  for (const Tensor& t : tensors_) {
    f.write(reinterpret_cast<const char*>(t.data.data()),
            static_cast<std::streamsize>(t.data.size()));
    const uint64_t pad = AlignUp(t.data.size(), alignment_) - t.data.size();
    f.write(zeros.data(), static_cast<std::streamsize>(pad));
  }
  if (!f) throw Error(ErrorCode::kIo, "cannot write " + path.string());
}

}  // namespace orcd
