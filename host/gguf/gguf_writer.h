// Minimal GGUF v3 writer: used by orcd-synth to make demo models and by tests
// to build valid and deliberately corrupted files.
#ifndef ORCD_HOST_GGUF_GGUF_WRITER_H_
#define ORCD_HOST_GGUF_GGUF_WRITER_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "host/gguf/gguf_value.h"

namespace orcd {

class GgufWriter {
 public:
  // Values are encoded immediately; string views need not outlive the call.
  void Set(std::string_view key, const GgufValue& value);
  void SetU32(std::string_view key, uint32_t v);
  void SetI32(std::string_view key, int32_t v);
  void SetU64(std::string_view key, uint64_t v);
  void SetF32(std::string_view key, float v);
  void SetBool(std::string_view key, bool v);
  void SetString(std::string_view key, std::string_view v);
  void SetStringArray(std::string_view key, const std::vector<std::string>& v);
  void SetF32Array(std::string_view key, const std::vector<float>& v);
  void SetI32Array(std::string_view key, const std::vector<int32_t>& v);

  // `ne` in ggml order; `data` must hold exactly the type's byte size.
  void AddTensor(std::string_view name, uint32_t ggml_type, const std::vector<int64_t>& ne,
                 std::vector<uint8_t> data);

  void set_alignment(uint64_t alignment) { alignment_ = alignment; }
  void set_version(uint32_t version) { version_ = version; }

  std::vector<uint8_t> Serialize() const;
  // Throws orcd::Error(kIo) on failure.
  void WriteFile(const std::filesystem::path& path) const;

 private:
  struct Tensor {
    std::string name;
    uint32_t type;
    std::vector<int64_t> ne;
    std::vector<uint8_t> data;
  };
  std::vector<std::pair<std::string, std::vector<uint8_t>>> kv_;
  // Header, metadata and tensor infos, padded to where the data starts.
  std::vector<uint8_t> SerializeHead() const;

  std::vector<Tensor> tensors_;
  uint64_t alignment_ = 32;
  uint32_t version_ = 3;
};

}  // namespace orcd

#endif  // ORCD_HOST_GGUF_GGUF_WRITER_H_
