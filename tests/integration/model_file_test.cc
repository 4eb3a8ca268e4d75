// Hostile model files: orcd-inspect's verdict is the load's (plan compile and
// validation), an absurd block_count is refused at once, a FIFO is never
// opened, and SIGTERM ends a load in progress.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "host/gguf/gguf_file.h"
#include "host/gguf/gguf_writer.h"
#include "tests/integration/worker_process.h"

namespace orcd::testing {
namespace {

using namespace std::chrono_literals;

std::string TempPath(const std::string& name) {
  return "/tmp/orcd-model-" + std::to_string(::getpid()) + "-" + name;
}

// A copy of qwen2-tiny.F16 with some u32 keys replaced (nullopt: removed)
// and, optionally, no tensors.
std::string Variant(const std::string& name,
                    const std::map<std::string, std::optional<uint32_t>>& keys,
                    bool keep_tensors = true) {
  auto src = GgufFile::Open(FixtureModel("qwen2-tiny.F16.gguf"));
  GgufWriter w;
  w.set_alignment(src->alignment());
  for (const auto& [key, value] : src->metadata()) {
    if (key == "general.alignment" || keys.count(key)) continue;
    w.Set(key, value);
  }
  for (const auto& [key, value] : keys) {
    if (value) w.SetU32(key, *value);
  }
  if (keep_tensors) {
    for (const GgufTensorInfo& t : src->tensors()) {
      w.AddTensor(t.name, t.type, std::vector<int64_t>(t.ne.begin(), t.ne.begin() + t.n_dims),
                  std::vector<uint8_t>(t.data, t.data + t.n_bytes));
    }
  }
  const std::string path = TempPath(name + ".gguf");
  w.WriteFile(path);
  return path;
}

std::vector<std::string> HostArgs(const std::string& model) {
  return {"--model", model, "--device", "cpu", "--plugin-dir", ORCD_PLUGIN_DIR, "--port", "0"};
}

int Inspect(const std::string& model, std::string* output) {
  const std::string cmd = std::string(ORCD_BIN_DIR) + "/orcd-inspect --plugin-dir " +
                          ORCD_PLUGIN_DIR + " " + model + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output->append(buf, n);
  const int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ModelFiles, InspectSaysSupportedExactlyWhenTheHostLoads) {
  struct Case {
    std::string name;
    std::map<std::string, std::optional<uint32_t>> keys;
    bool keep_tensors = true;
  } cases[] = {
      {"block_count_absurd", {{"qwen2.block_count", 4294967295u}}},
      {"block_count_one_too_many", {{"qwen2.block_count", 3}}},
      {"block_count_zero", {{"qwen2.block_count", 0}}},
      {"zero_heads", {{"qwen2.attention.head_count", 0}}},
      {"zero_kv_heads", {{"qwen2.attention.head_count_kv", 0}}},
      {"kv_heads_not_dividing", {{"qwen2.attention.head_count_kv", 3}}},
      {"zero_embedding", {{"qwen2.embedding_length", 0}}},
      {"zero_key_length", {{"qwen2.attention.key_length", 0}}},
      {"key_length_not_the_tensors", {{"qwen2.attention.key_length", 48}}},
      {"odd_rope_dims", {{"qwen2.rope.dimension_count", 7}}},
      {"no_tensors", {}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = Variant(c.name, c.keys, c.keep_tensors);
    std::string inspect_out;
    EXPECT_EQ(Inspect(path, &inspect_out), 3) << inspect_out;
    EXPECT_NE(inspect_out.find("supported:     no"), std::string::npos) << inspect_out;
    const auto t0 = std::chrono::steady_clock::now();
    auto [code, out] = WorkerProcess::RunToExit(HostArgs(path), 30s);
    EXPECT_EQ(code, 1) << out;
    EXPECT_NE(out.find("MODEL_LOAD_FAILED"), std::string::npos) << out;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s) << "refused, not computed";
    std::remove(path.c_str());
  }
  // The unmodified copy is supported by both.
  const std::string same = Variant("unmodified", {});
  std::string out;
  EXPECT_EQ(Inspect(same, &out), 0) << out;
  WorkerProcess host(HostArgs(same));
  EXPECT_TRUE(host.ready()) << host.Logs();
  std::remove(same.c_str());
}

TEST(ModelFiles, FifoModelPathIsRefusedWithoutBlocking) {
  const std::string fifo = TempPath("fifo.gguf");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto [code, out] = WorkerProcess::RunToExit(HostArgs(fifo), 20s);
  EXPECT_EQ(code, 1) << out;
  EXPECT_NE(out.find("not a regular file"), std::string::npos) << out;
  std::string inspect_out;
  EXPECT_EQ(Inspect(fifo, &inspect_out), 1) << inspect_out;
  std::remove(fifo.c_str());
}

// The load's progress as a pool manager's log reader sees it: one
// model_load_progress line per step, 0/25/50/75/100 in order, the percent a
// JSON number; nothing else under that event (gpt2-tiny has no chat
// template: that is said under its own event).
TEST(ModelFiles, LoadProgressIsOneLinePerStepWithANumericPercent) {
  WorkerProcess w(HostArgs(FixtureModel("gpt2-tiny.F16.gguf")));
  ASSERT_TRUE(w.ready()) << w.Logs();
  const std::string logs = w.Logs();
  std::vector<std::string> percents;
  for (size_t at = logs.find("\"event\":\"model_load_progress\""); at != std::string::npos;
       at = logs.find("\"event\":\"model_load_progress\"", at + 1)) {
    const size_t end = logs.find('\n', at);
    const std::string line = logs.substr(at, end - at);
    const size_t p = line.find("\"percent\":");
    ASSERT_NE(p, std::string::npos) << "a progress line without a percent: " << line;
    const size_t from = p + 10;
    percents.push_back(line.substr(from, line.find(',', from) - from));
  }
  EXPECT_EQ(percents, (std::vector<std::string>{"0", "25", "50", "75", "100"})) << logs;
}

TEST(ModelFiles, SigtermEndsALoadInProgress) {
  std::vector<std::string> args = HostArgs(FixtureModel("qwen2-tiny.F16.gguf"));
  // Each progress step sleeps 60 s: the load would take minutes.
  WorkerProcess w(args, {{"ORCD_DEBUG_LOAD_DELAY_MS", "60000"}}, /*wait_ready=*/false);
  for (int i = 0; i < 500 && w.Logs().find("model_load_progress") == std::string::npos; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_NE(w.Logs().find("model_load_progress"), std::string::npos) << w.Logs();
  w.Signal(SIGTERM);
  EXPECT_EQ(w.WaitExit(3s), 0) << w.Logs();
  EXPECT_NE(w.Logs().find("during model load"), std::string::npos) << w.Logs();
}

}  // namespace
}  // namespace orcd::testing
