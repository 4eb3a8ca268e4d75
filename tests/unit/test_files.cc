#include "tests/unit/test_files.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>

namespace orcd::testing {

TempDir::TempDir() {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() /
          ("orcd-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path FixturePath(const std::string& relative) {
  return std::filesystem::path(ORCD_FIXTURES_DIR) / relative;
}

std::vector<uint8_t> ReadBytes(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void WriteBytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path.string());
}

CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

GgufWriter SmallModelWriter() {
  GgufWriter w;
  w.SetString("general.architecture", "testarch");
  w.SetString("general.name", "small");
  w.SetU32("testarch.block_count", 2);
  w.SetI32("testarch.signed", -7);
  w.SetU64("testarch.big", 1ull << 40);
  w.SetF32("testarch.rope.freq_base", 10000.0f);
  w.SetBool("testarch.flag", true);
  w.SetStringArray("tokenizer.ggml.tokens", {"a", "b", "<0x0A>", "\xe4\xbd\xa0"});
  w.SetF32Array("tokenizer.ggml.scores", {0.5f, -1.0f, 0.0f, 2.0f});
  GgufValue nested;
  nested.type = GgufType::kArray;
  nested.element_type = GgufType::kArray;
  for (int row = 0; row < 2; ++row) {
    GgufValue inner;
    inner.type = GgufType::kArray;
    inner.element_type = GgufType::kUint16;
    for (int k = 0; k < 3; ++k) {
      GgufValue x;
      x.type = GgufType::kUint16;
      x.u = static_cast<uint64_t>(row * 10 + k);
      inner.items.push_back(x);
    }
    nested.items.push_back(inner);
  }
  w.Set("testarch.nested", nested);
  std::vector<uint8_t> f32(4 * 8 * 2);
  for (size_t i = 0; i < f32.size(); ++i) f32[i] = static_cast<uint8_t>(i);
  w.AddTensor("norm.weight", 0 /*F32*/, {8, 2}, f32);
  w.AddTensor("blk.0.w", 8 /*Q8_0*/, {64, 3}, std::vector<uint8_t>(2 * 34 * 3, 0x11));
  return w;
}

}  // namespace orcd::testing
