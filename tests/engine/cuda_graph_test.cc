// Decode steps replayed from a recorded graph (the emulated device records
// its stream's launches as CUDA stream capture does) against the same steps
// launched kernel by kernel: bit-identical logits at every step. A replay
// reuses the recorded launch arguments, so anything a step took from the
// host by value instead of through the device's per-step values (position,
// token, window slot) would freeze at the recorded step and the logits would
// part from the second replay on. Teacher-forced past gptoss-tiny's 16-token
// window (the ring wraps during replays) and through gpt2's learned
// positions; greedy and sampled steps replay the same graph.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "engine_test_support.h"
#include "golden.h"

namespace orcd::testing {
namespace {

struct GraphCase {
  const char* golden;
  const char* model;
};

void PrintTo(const GraphCase& c, std::ostream* os) { *os << c.model; }

class CudaGraphs : public ::testing::TestWithParam<GraphCase> {};

TEST_P(CudaGraphs, ReplayedDecodeStepsEqualEagerOnesBitForBit) {
  const GraphCase c = GetParam();
  const Golden golden = LoadGolden(c.golden);
  engine::EngineOptions eager_options;
  eager_options.cuda_graphs = false;
  auto eager = LoadEmulatedCudaEngine(c.model, 1ull << 30, eager_options);
  auto graphed = LoadEmulatedCudaEngine(c.model);
  const std::vector<float> a = TeacherForcedLogits(*eager, golden.prompt, golden.greedy);
  const std::vector<float> b = TeacherForcedLogits(*graphed, golden.prompt, golden.greedy);
  const std::string diff = FirstBitDifference(a, b, golden, "eager", "graph");
  ASSERT_TRUE(diff.empty()) << c.model << ": " << diff;
  // One warm-up step, one recorded (and run), the rest replayed.
  const uint64_t steps = golden.greedy.size();
  ASSERT_GE(steps, 4u);
  EXPECT_EQ(graphed->cuda_backend()->graph_replays(), steps - 1);
  EXPECT_EQ(eager->cuda_backend()->graph_replays(), 0u);

  // Greedy steps on the device replay the same graph and pick the same ids.
  int32_t eager_token = eager->PrefillGreedy(golden.prompt);
  int32_t graph_token = graphed->PrefillGreedy(golden.prompt);
  ASSERT_EQ(graph_token, eager_token);
  for (size_t i = 1; i < 6; ++i) {
    eager_token = eager->DecodeGreedy(eager_token);
    graph_token = graphed->DecodeGreedy(graph_token);
    ASSERT_EQ(graph_token, eager_token) << c.model << " greedy step " << i;
  }
  EXPECT_EQ(graphed->cuda_backend()->graph_replays(), steps - 1 + 5);
  EXPECT_GT(graphed->cuda_backend()->decode_graph_kernels(), 10u);
}

INSTANTIATE_TEST_SUITE_P(Models, CudaGraphs,
                         ::testing::Values(GraphCase{"gptoss-tiny.F16.long", "gptoss-tiny.F16"},
                                           GraphCase{"gptoss-tiny.MXFP4_MOE",
                                                     "gptoss-tiny.MXFP4_MOE"},
                                           GraphCase{"gpt2-tiny.Q8_0", "gpt2-tiny.Q8_0"},
                                           GraphCase{"qwen2-tiny.Q4_K_M", "qwen2-tiny.Q4_K_M"}),
                         [](const ::testing::TestParamInfo<GraphCase>& info) {
                           std::string name = info.param.model;
                           for (char& ch : name) {
                             if (ch == '.' || ch == '-') ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace orcd::testing
