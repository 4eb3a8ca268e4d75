// orcd-inspect as a user runs it: whether a file can run, on the CPU and on
// the CUDA backend (which needs every quantized type's CUDA kernels).
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "golden.h"

namespace orcd::testing {
namespace {

TEST(InspectCli, QuantizedFileIsSupportedOnTheCpu) {
  const CliResult r = RunTool("orcd-inspect", {FixtureModel("phi3-tiny.Q4_K_M").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("supported:     yes"), std::string::npos) << r.out;
}

// With CUDA built the plugins carry CUDA kernels; without it, --device cuda
// names the types that cannot run.
TEST(InspectCli, CudaNeedsTheQuantPluginsCudaKernels) {
  const CliResult r = RunTool("orcd-inspect", {"--device", "cuda", "--json",
                                               FixtureModel("gptoss-tiny.MXFP4_MOE").string()});
#if ORCD_TEST_HAVE_CUDA
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\"supported\":true"), std::string::npos) << r.out;
#else
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("MXFP4: plugin 'mxfp4' has no CUDA kernels"), std::string::npos) << r.out;
#endif
}

TEST(InspectCli, UnknownDeviceIsAUsageError) {
  const CliResult r =
      RunTool("orcd-inspect", {"--device", "tpu", FixtureModel("qwen2-tiny.F16").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--device wants cpu or cuda"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace orcd::testing
