// GGUF reader: maps the file, parses header, metadata and tensor infos, and
// bounds-checks every count, length and offset against the file size before
// use. A malformed file raises orcd::Error(kModelInvalid) naming what is wrong
// and where; nothing is read outside the mapping.
#ifndef ORCD_HOST_GGUF_GGUF_FILE_H_
#define ORCD_HOST_GGUF_GGUF_FILE_H_

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/gguf/gguf_value.h"
#include "host/gguf/mapped_file.h"

namespace orcd {

constexpr uint32_t kGgufMagic = 0x46554747;  // "GGUF" read as little-endian u32
constexpr uint64_t kGgufDefaultAlignment = 32;
constexpr uint32_t kGgufMaxDims = 4;

struct GgufTensorInfo {
  std::string name;
  uint32_t type = 0;  // ggml type id
  uint32_t n_dims = 0;
  std::array<int64_t, kGgufMaxDims> ne{1, 1, 1, 1};  // ggml order: ne[0] = row length
  uint64_t offset = 0;                               // relative to the data section
  uint64_t n_bytes = 0;                              // computed from type and shape
  const uint8_t* data = nullptr;                     // inside the mapping

  int64_t n_elements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
  int64_t n_rows() const { return ne[1] * ne[2] * ne[3]; }
  std::string ShapeString() const;  // e.g. "896x151936"
};

class GgufFile {
 public:
  // Maps and parses `path`. Throws orcd::Error.
  static std::unique_ptr<GgufFile> Open(const std::filesystem::path& path);
  // Parses bytes the caller keeps alive (used by fuzzing). Throws orcd::Error.
  static std::unique_ptr<GgufFile> Parse(std::span<const uint8_t> bytes, std::string source_name);

  const std::string& source_name() const { return source_name_; }
  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }
  uint64_t file_size() const { return bytes_.size(); }

  // Metadata in file order.
  const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return metadata_; }
  const GgufValue* Find(std::string_view key) const;

  std::optional<uint64_t> GetU64(std::string_view key) const;
  std::optional<int64_t> GetI64(std::string_view key) const;
  std::optional<double> GetF64(std::string_view key) const;
  std::optional<bool> GetBool(std::string_view key) const;
  std::optional<std::string_view> GetString(std::string_view key) const;
  // Typed arrays; nullopt when absent or when any element has another type.
  std::optional<std::vector<std::string_view>> GetStringArray(std::string_view key) const;
  std::optional<std::vector<float>> GetF32Array(std::string_view key) const;
  std::optional<std::vector<int64_t>> GetIntArray(std::string_view key) const;

  // general.architecture, or "" when missing.
  std::string_view architecture() const;

  const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
  const GgufTensorInfo* FindTensor(std::string_view name) const;

 private:
  GgufFile() = default;
  void ParseAll();

  std::unique_ptr<MappedFile> mapping_;  // null when parsing caller bytes
  std::span<const uint8_t> bytes_;
  std::string source_name_;
  uint32_t version_ = 0;
  uint64_t alignment_ = kGgufDefaultAlignment;
  uint64_t data_offset_ = 0;
  std::vector<std::pair<std::string, GgufValue>> metadata_;
  std::map<std::string, size_t, std::less<>> metadata_index_;
  std::vector<GgufTensorInfo> tensors_;
  std::map<std::string, size_t, std::less<>> tensor_index_;
};

}  // namespace orcd

#endif  // ORCD_HOST_GGUF_GGUF_FILE_H_
