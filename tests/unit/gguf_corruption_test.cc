// The GGUF reader on truncated and hostile files: every failure is an
// orcd::Error(kModelInvalid) that says what is wrong, never a crash or an
// over-read (run under -DORCD_SANITIZE=address,undefined to prove the latter).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "tests/unit/test_files.h"

namespace orcd {
namespace {

// Builds GGUF bytes field by field, so a test can write exactly the lie it needs.
class Raw {
 public:
  Raw& U8(uint8_t v) { return Put(v); }
  Raw& U32(uint32_t v) { return Put(v); }
  Raw& U64(uint64_t v) { return Put(v); }
  Raw& Str(const std::string& s) {
    U64(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
    return *this;
  }
  Raw& Header(uint64_t n_tensors, uint64_t n_kv, uint32_t version = 3) {
    return U32(kGgufMagic).U32(version).U64(n_tensors).U64(n_kv);
  }
  // A tensor info: name, dims, type, offset.
  Raw& Tensor(const std::string& name, std::vector<uint64_t> ne, uint32_t type, uint64_t offset) {
    Str(name).U32(static_cast<uint32_t>(ne.size()));
    for (uint64_t n : ne) U64(n);
    return U32(type).U64(offset);
  }
  Raw& PadTo(size_t alignment) {
    while (bytes.size() % alignment) bytes.push_back(0);
    return *this;
  }
  Raw& Zeros(size_t n) {
    bytes.insert(bytes.end(), n, 0);
    return *this;
  }
  std::vector<uint8_t> bytes;

 private:
  template <typename T>
  Raw& Put(T v) {
    const size_t at = bytes.size();
    bytes.resize(at + sizeof v);
    std::memcpy(bytes.data() + at, &v, sizeof v);
    return *this;
  }
};

// Expects parsing to fail with kModelInvalid and a message containing `needle`.
void ExpectInvalid(const std::vector<uint8_t>& bytes, const std::string& needle) {
  try {
    GgufFile::Parse(bytes, "bad.gguf");
    FAIL() << "parsed a corrupt file; expected: " << needle;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kModelInvalid) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message '" << e.what() << "' lacks '" << needle << "'";
    EXPECT_EQ(std::string(e.what()).rfind("bad.gguf: ", 0), 0u) << "names the file";
  }
}

TEST(GgufCorruption, EmptyFile) { ExpectInvalid({}, "shorter than the 4-byte magic"); }

TEST(GgufCorruption, BadMagic) { ExpectInvalid(Raw().U32(0x4c4d4747).U32(3).bytes, "bad magic"); }

TEST(GgufCorruption, Version1IsRefused) {
  ExpectInvalid(Raw().Header(0, 0, 1).bytes, "version 1 is not supported");
}

TEST(GgufCorruption, UnknownVersion) {
  ExpectInvalid(Raw().Header(0, 0, 7).bytes, "unsupported GGUF version 7");
}

TEST(GgufCorruption, BigEndianFile) {
  ExpectInvalid(Raw().Header(0, 0, 0x03000000).bytes, "big-endian");
}

TEST(GgufCorruption, TruncatedHeader) {
  ExpectInvalid(Raw().U32(kGgufMagic).U32(3).U32(0).bytes, "truncated: tensor count");
}

TEST(GgufCorruption, HugeMetadataCount) {
  ExpectInvalid(Raw().Header(0, 1ull << 60).bytes, "metadata count");
}

TEST(GgufCorruption, HugeTensorCount) {
  ExpectInvalid(Raw().Header(1ull << 62, 0).Zeros(64).bytes, "tensor count");
}

TEST(GgufCorruption, KeyLengthPastEndOfFile) {
  ExpectInvalid(Raw().Header(0, 1).U64(1000).Zeros(12).bytes, "metadata key #0");
}

TEST(GgufCorruption, UnknownValueType) {
  ExpectInvalid(Raw().Header(0, 1).Str("a.b").U32(13).U32(0).bytes, "unknown value type 13");
}

TEST(GgufCorruption, StringLengthPastEndOfFile) {
  ExpectInvalid(Raw().Header(0, 1).Str("a.b").U32(8).U64(1ull << 40).bytes, "'a.b' string needs");
}

TEST(GgufCorruption, ArrayLengthLargerThanFile) {
  ExpectInvalid(Raw().Header(0, 1).Str("tok").U32(9).U32(8).U64(1ull << 50).bytes,
                "array length 1125899906842624 does not fit");
}

TEST(GgufCorruption, ArrayOfUnknownType) {
  ExpectInvalid(Raw().Header(0, 1).Str("arr").U32(9).U32(42).U64(1).bytes,
                "unknown array element type 42");
}

TEST(GgufCorruption, ArraysNestedTooDeeply) {
  Raw r;
  r.Header(0, 1).Str("deep").U32(9);
  for (int i = 0; i < 20; ++i) r.U32(9).U64(1);  // array of array of ...
  r.U32(4).U64(1).U32(7);
  ExpectInvalid(r.bytes, "nested too deeply");
}

TEST(GgufCorruption, BoolOutOfRange) {
  ExpectInvalid(Raw().Header(0, 1).Str("flag").U32(7).U8(2).Zeros(8).bytes, "bool byte is 2");
}

TEST(GgufCorruption, DuplicateKey) {
  ExpectInvalid(Raw().Header(0, 2).Str("k").U32(4).U32(1).Str("k").U32(4).U32(2).bytes,
                "duplicate metadata key 'k'");
}

TEST(GgufCorruption, AlignmentNotPowerOfTwo) {
  ExpectInvalid(Raw().Header(0, 1).Str("general.alignment").U32(4).U32(48).bytes,
                "not a power of two");
}

TEST(GgufCorruption, AlignmentOfWrongType) {
  ExpectInvalid(Raw().Header(0, 1).Str("general.alignment").U32(6).U32(0).bytes,
                "general.alignment must be UINT32");
}

TEST(GgufCorruption, TensorWithTooManyDims) {
  ExpectInvalid(Raw().Header(1, 0).Tensor("t", {1, 1, 1, 1, 1}, 0, 0).PadTo(32).Zeros(64).bytes,
                "n_dims 5 is outside 1..4");
}

TEST(GgufCorruption, TensorWithZeroDimension) {
  ExpectInvalid(Raw().Header(1, 0).Tensor("t", {4, 0}, 0, 0).PadTo(32).Zeros(64).bytes,
                "dimension 1 = 0");
}

TEST(GgufCorruption, TensorElementCountOverflows) {
  ExpectInvalid(
      Raw().Header(1, 0).Tensor("t", {1ull << 40, 1ull << 40}, 0, 0).PadTo(32).Zeros(64).bytes,
      "overflows");
}

TEST(GgufCorruption, TensorOfUnknownType) {
  ExpectInvalid(Raw().Header(1, 0).Tensor("t", {32}, 77, 0).PadTo(32).Zeros(64).bytes,
                "tensor 't': unknown ggml type 77");
}

TEST(GgufCorruption, RowNotMultipleOfBlock) {
  ExpectInvalid(Raw().Header(1, 0).Tensor("t", {100, 2}, 12, 0).PadTo(32).Zeros(1024).bytes,
                "row length 100 is not a multiple of the Q4_K block size 256");
}

TEST(GgufCorruption, MisalignedTensorOffset) {
  ExpectInvalid(Raw().Header(1, 0).Tensor("t", {8}, 0, 4).PadTo(32).Zeros(64).bytes,
                "offset 4 is not aligned to 32");
}

TEST(GgufCorruption, TensorDataPastEndOfFile) {
  ExpectInvalid(Raw().Header(1, 0).Tensor("t", {1024}, 0, 0).PadTo(32).Zeros(100).bytes,
                "tensor 't' (4096 bytes at data offset 0) extends past the end");
}

TEST(GgufCorruption, TensorOffsetFarPastEnd) {
  ExpectInvalid(Raw().Header(1, 0).Tensor("t", {8}, 0, 1ull << 62).PadTo(32).Zeros(64).bytes,
                "extends past the end");
}

TEST(GgufCorruption, OverlappingTensors) {
  ExpectInvalid(
      Raw().Header(2, 0).Tensor("a", {64}, 0, 0).Tensor("b", {8}, 0, 32).PadTo(32).Zeros(256).bytes,
      "tensors 'a' and 'b' overlap");
}

TEST(GgufCorruption, DuplicateTensorName) {
  ExpectInvalid(
      Raw().Header(2, 0).Tensor("a", {8}, 0, 0).Tensor("a", {8}, 0, 32).PadTo(32).Zeros(64).bytes,
      "duplicate tensor 'a'");
}

// Every prefix of a valid file must fail cleanly (or parse, for prefixes that
// keep all tensor bytes): the reader never reads past what it was given.
TEST(GgufCorruption, EveryTruncationFailsCleanly) {
  const std::vector<uint8_t> good = testing::SmallModelWriter().Serialize();
  GgufFile::Parse(good, "good.gguf");  // sanity: the full file parses
  size_t failures = 0;
  for (size_t n = 0; n < good.size(); ++n) {
    // A fresh copy of exactly n bytes, so ASan catches any over-read.
    std::vector<uint8_t> prefix(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    try {
      GgufFile::Parse(prefix, "cut.gguf");
    } catch (const Error& e) {
      ASSERT_EQ(e.code(), ErrorCode::kModelInvalid) << "prefix " << n << ": " << e.what();
      ++failures;
    }
  }
  // Only cuts inside the trailing alignment padding can still parse.
  EXPECT_GE(failures, good.size() - 32);
}

// Random byte flips: parse or fail with kModelInvalid, nothing else.
TEST(GgufCorruption, RandomByteFlipsNeverCrash) {
  const std::vector<uint8_t> good = testing::SmallModelWriter().Serialize();
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<uint8_t> bad = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    try {
      GgufFile::Parse(bad, "flip.gguf");
    } catch (const Error& e) {
      ASSERT_EQ(e.code(), ErrorCode::kModelInvalid) << e.what();
    }
  }
}

}  // namespace
}  // namespace orcd
