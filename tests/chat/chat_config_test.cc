// worker.yaml's chat section: chat.template_file names a Jinja template that
// replaces the model's tokenizer.chat_template.
#include <gtest/gtest.h>

#include "host/common/status.h"
#include "host/server/worker_config.h"

namespace orcd::testing {
namespace {

TEST(ChatConfig, TemplateFile) {
  EXPECT_TRUE(ParseWorkerConfig("model:\n  path: m.gguf\n", "t").chat_template_file.empty());
  const WorkerConfig c = ParseWorkerConfig(
      "model:\n  path: m.gguf\nchat:\n  template_file: /etc/orcd/chat.jinja\n", "t");
  EXPECT_EQ(c.chat_template_file, "/etc/orcd/chat.jinja");
  EXPECT_THROW(ParseWorkerConfig("chat:\n  template: x\n", "t"), Error);  // unknown key
}

}  // namespace
}  // namespace orcd::testing
