// Fuzz target: the GGUF reader on arbitrary bytes (header, metadata of every
// type including nested arrays, tensor infos, offsets), then what the host
// reads from a parsed file before any plugin sees it: every typed accessor
// and the tokenizer built from the vocabulary metadata. A malformed file must
// raise orcd::Error; anything else escaping (std::length_error, bad_alloc
// from a count the file cannot back) is a crash.
#include <span>
#include <string>

#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/tokenizer/streaming_detokenizer.h"
#include "host/tokenizer/tokenizer_factory.h"
#include "tests/fuzz/fuzz_support.h"

namespace orcd::fuzz {
namespace {

// Reads every value through the accessors the host uses; `volatile` keeps
// the reads from being optimized away.
void ReadEverything(const GgufFile& file, std::span<const uint8_t> bytes) {
  volatile size_t sink = file.architecture().size();
  for (const auto& [key, value] : file.metadata()) {
    Check(file.Find(key) != nullptr, "every metadata key can be found");
    sink = sink + value.ToDisplayString().size();
    sink = sink + file.GetU64(key).value_or(0) + file.GetBool(key).value_or(false);
    sink = sink + file.GetString(key).value_or("").size();
    if (auto strings = file.GetStringArray(key)) sink = sink + strings->size();
    if (auto floats = file.GetF32Array(key)) sink = sink + floats->size();
    if (auto ints = file.GetIntArray(key)) sink = sink + ints->size();
  }
  for (const GgufTensorInfo& tensor : file.tensors()) {
    Check(file.FindTensor(tensor.name) != nullptr, "every tensor can be found");
    // The reader promises that every tensor lies inside the bytes it parsed.
    const uint8_t* end = bytes.data() + bytes.size();
    Check(tensor.data >= bytes.data() && tensor.data <= end &&
              tensor.n_bytes <= static_cast<uint64_t>(end - tensor.data),
          "tensor data inside the file");
    sink = sink + tensor.ShapeString().size();
  }
}

void BuildTokenizer(const GgufFile& file) {
  std::unique_ptr<Tokenizer> tokenizer;
  try {
    tokenizer = CreateGgufTokenizer(file);
  } catch (const Error&) {
    return;  // not a usable vocabulary: refused, as the load refuses it
  }
  const auto ids = tokenizer->Encode("Hello, world! <s> 123", true, true);
  for (const TokenId id : ids) {
    Check(id >= 0 && static_cast<size_t>(id) < tokenizer->vocab_size(), "ids in the vocabulary");
  }
  DecodeTokens(*tokenizer, ids);
}

}  // namespace
}  // namespace orcd::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::unique_ptr<orcd::GgufFile> file;
  try {
    file = orcd::GgufFile::Parse(std::span<const uint8_t>(data, size), "fuzz");
  } catch (const orcd::Error&) {
    return 0;
  }
  orcd::fuzz::ReadEverything(*file, std::span<const uint8_t>(data, size));
  orcd::fuzz::BuildTokenizer(*file);
  return 0;
}
