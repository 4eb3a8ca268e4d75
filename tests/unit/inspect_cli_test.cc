// orcd-inspect as a user runs it: on every fixture model it prints the right
// architecture and type mix; on a truncated copy it fails with a message.
#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <fstream>
#include <map>
#include <sstream>

#include "tests/unit/test_files.h"

namespace orcd {
namespace {

std::string Inspect(const std::string& args) {
  return std::string(ORCD_BIN_DIR) + "/orcd-inspect --plugin-dir " + ORCD_PLUGIN_DIR + " " + args;
}

TEST(InspectCli, ReportsArchitectureAndTypeMixOfEveryFixture) {
  std::ifstream mf(testing::FixturePath("models/manifest.json"));
  std::stringstream ss;
  ss << mf.rdbuf();
  auto manifest = Poco::JSON::Parser().parse(ss.str()).extract<Poco::JSON::Object::Ptr>();
  for (const auto& [name, entry_var] : *manifest) {
    SCOPED_TRACE(name);
    auto entry = entry_var.extract<Poco::JSON::Object::Ptr>();
    std::map<std::string, uint64_t> expected_mix;
    auto tensors = entry->getArray("tensors");
    for (size_t k = 0; k < tensors->size(); ++k) {
      ++expected_mix[tensors->getObject(static_cast<unsigned>(k))->getValue<std::string>("type")];
    }
    const testing::CommandResult r =
        testing::RunCommand(Inspect("--json " + testing::FixturePath("models/" + name).string()));
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.output;
    auto report = Poco::JSON::Parser().parse(r.output).extract<Poco::JSON::Object::Ptr>();
    EXPECT_EQ(report->getValue<std::string>("architecture"), entry->getObject("metadata")
                                                                 ->getObject("general.architecture")
                                                                 ->getValue<std::string>("value"));
    EXPECT_EQ(report->getValue<uint64_t>("tensor_count"), tensors->size());
    EXPECT_EQ(report->getValue<uint64_t>("size_bytes"), entry->getValue<uint64_t>("size_bytes"));
    auto mix = report->getObject("type_mix");
    EXPECT_EQ(mix->size(), expected_mix.size());
    for (const auto& [type, count] : expected_mix) {
      ASSERT_TRUE(mix->has(type)) << type;
      EXPECT_EQ(mix->getObject(type)->getValue<uint64_t>("tensors"), count) << type;
    }
    // Exit status and the problems list agree.
    EXPECT_EQ(r.exit_code == 0, report->getValue<bool>("supported"));
  }
}

TEST(InspectCli, TextReportNamesTheEssentials) {
  const testing::CommandResult r =
      testing::RunCommand(Inspect(testing::FixturePath("models/qwen2-tiny.Q4_K_M.gguf").string()));
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.output;
  EXPECT_NE(r.output.find("architecture:  qwen2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("context_length"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Q6_K"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Q4_K"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1.6 MiB"), std::string::npos) << r.output;
}

TEST(InspectCli, TruncatedFileExitsNonZeroWithMessage) {
  testing::TempDir dir;
  std::vector<uint8_t> bytes =
      testing::ReadBytes(testing::FixturePath("models/qwen2-tiny.Q4_0.gguf"));
  bytes.resize(bytes.size() / 2);
  testing::WriteBytes(dir / "cut.gguf", bytes);
  const testing::CommandResult r = testing::RunCommand(Inspect((dir / "cut.gguf").string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("MODEL_INVALID"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("extends past the end of the file"), std::string::npos) << r.output;
}

TEST(InspectCli, MissingFileAndBadUsage) {
  EXPECT_EQ(testing::RunCommand(Inspect("/no/such/file.gguf")).exit_code, 1);
  EXPECT_EQ(testing::RunCommand(Inspect("")).exit_code, 2);
  EXPECT_EQ(testing::RunCommand(Inspect("--bogus x.gguf")).exit_code, 2);
}

}  // namespace
}  // namespace orcd
