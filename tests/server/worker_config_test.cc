// worker.yaml parsing: defaults, the documented example, unknown keys and bad
// values naming the key, and command-line overrides.
#include "host/server/worker_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "host/common/status.h"

namespace orcd {
namespace {

std::string ErrorOf(const std::string& yaml) {
  try {
    ParseWorkerConfig(yaml, "w.yaml");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << yaml;
  return "";
}

TEST(WorkerConfig, DocumentedExampleParsesToTheDefaults) {
  WorkerConfig c = LoadWorkerConfig(std::filesystem::path(ORCD_SOURCE_DIR) / "conf/worker.yaml");
  WorkerConfig d;
  EXPECT_EQ(c.device, d.device);
  EXPECT_EQ(c.cpu_decode_activations, d.cpu_decode_activations);
  EXPECT_EQ(c.cuda_graphs, "on");
  EXPECT_EQ(c.cuda_gemm_column_tile, d.cuda_gemm_column_tile);
  EXPECT_EQ(c.vram_headroom_mib, d.vram_headroom_mib);
  EXPECT_EQ(c.bind_address, "127.0.0.1");
  EXPECT_EQ(c.port, d.port);
  EXPECT_EQ(c.max_output_tokens, d.max_output_tokens);
  EXPECT_EQ(c.inference_timeout_s, d.inference_timeout_s);
  EXPECT_TRUE(c.plugin_dirs.empty());
  EXPECT_EQ(c.model_path, "/var/lib/orcd/models/model.gguf");
  EXPECT_EQ(c.slots, d.slots);
  EXPECT_EQ(c.queue_depth, d.queue_depth);
  EXPECT_EQ(c.max_batched_tokens, d.max_batched_tokens);
  EXPECT_EQ(c.prompt_batch_tokens, d.prompt_batch_tokens);
  EXPECT_EQ(c.step_time_target_ms, d.step_time_target_ms);
  EXPECT_EQ(c.kv_type, d.kv_type);
  EXPECT_EQ(c.prefix_cache_answers, d.prefix_cache_answers);
  EXPECT_EQ(c.prefix_cache, "on");
}

TEST(WorkerConfig, ParsesEveryKey) {
  WorkerConfig c = ParseWorkerConfig(R"(
worker_id: w7
model: {path: /m.gguf, tokenizer_json: /t.json}
device: {kind: cpu, gpu: 1, threads: 2, cpu_decode_activations: f32, cuda_graphs: off,
         vram_headroom_mib: 64, cuda_gemm_column_tile: 64}
server: {bind: 0.0.0.0, port: 9000, callback_url: "http://orch:1/ready"}
plugins: {dirs: [/a, /b]}
limits: {context_length: 4096, max_input_tokens: 4000, max_output_tokens: 100,
         inference_timeout_s: 1.5, kv_cache_bytes: 1000, shutdown_timeout_s: 2}
logging: {level: debug, format: json}
)",
                                     "w.yaml");
  EXPECT_EQ(c.worker_id, "w7");
  EXPECT_EQ(c.device, "cpu");
  EXPECT_EQ(c.threads, 2);
  EXPECT_EQ(c.cpu_decode_activations, "f32");
  EXPECT_EQ(c.cuda_graphs, "off");
  EXPECT_EQ(c.vram_headroom_mib, 64);
  EXPECT_EQ(GenerationOptionsFrom(c).vram_headroom_bytes, int64_t{64} << 20);
  EXPECT_EQ(GenerationOptionsFrom(c).cuda_gemm_column_tile, 64);
  EXPECT_EQ(c.port, 9000);
  EXPECT_EQ(c.plugin_dirs.size(), 2u);
  EXPECT_EQ(c.context_length, 4096);
  EXPECT_DOUBLE_EQ(c.inference_timeout_s, 1.5);
  EXPECT_EQ(c.log_level, "debug");
}

TEST(WorkerConfig, UnknownKeysAndBadValuesNameTheKey) {
  EXPECT_NE(ErrorOf("server: {prot: 1}").find("'server.prot': unknown key"), std::string::npos);
  EXPECT_NE(ErrorOf("server: {port: 70000}").find("'server.port': 70000 is outside 0..65535"),
            std::string::npos);
  EXPECT_NE(ErrorOf("server: {port: eighty}").find("'server.port': 'eighty' is not an integer"),
            std::string::npos);
  EXPECT_NE(ErrorOf("device: {kind: tpu}").find("'device.kind': 'tpu' is not one of cuda, cpu"),
            std::string::npos);
  EXPECT_NE(ErrorOf("device: {cpu_decode_activations: q4}")
                .find("'device.cpu_decode_activations': 'q4' is not one of q8, f32"),
            std::string::npos);
  EXPECT_NE(ErrorOf("device: {cuda_gemm_column_tile: -1}")
                .find("'device.cuda_gemm_column_tile': -1 is outside 0..4096"),
            std::string::npos);
  EXPECT_NE(ErrorOf("limits: {inference_timeout_s: 0}").find("'limits.inference_timeout_s'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("logging: {level: loud}").find("'logging.level'"), std::string::npos);
  EXPECT_NE(ErrorOf("server: {callback_url: ftp://x}").find("'server.callback_url'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("worker_id: [a]").find("'worker_id': a list is not allowed"),
            std::string::npos);
  EXPECT_NE(ErrorOf("server: [1, 2]").find("a list is not allowed"), std::string::npos);
  EXPECT_NE(ErrorOf("a: b: c").find("invalid YAML"), std::string::npos);
}

TEST(WorkerConfig, CommandLineOverridesTheFile) {
  const char* argv[] = {"orcd-host",      "--model",     "/x.gguf",      "--port=1234",
                        "--worker-id",    "cli",         "--gpu-device", "2",
                        "--callback-url", "http://o/cb", "--plugin-dir", "/p"};
  CommandLine cl = ParseCommandLine(12, argv);
  WorkerConfig c = ResolveWorkerConfig(cl);
  EXPECT_EQ(c.model_path, "/x.gguf");
  EXPECT_EQ(c.port, 1234);
  EXPECT_EQ(c.worker_id, "cli");
  EXPECT_EQ(c.gpu_device, 2);
  EXPECT_EQ(c.callback_url, "http://o/cb");
  ASSERT_EQ(c.plugin_dirs.size(), 1u);
}

// In a pod the worker binds 0.0.0.0, which the pool manager cannot dial: the
// registered uri is the advertised one (deploy/kubernetes passes the pod IP).
TEST(WorkerConfig, AdvertisedUriReplacesTheBindAddress) {
  WorkerConfig c = ParseWorkerConfig("server: {bind: 0.0.0.0, port: 8080}", "w.yaml");
  EXPECT_EQ(AdvertisedUri(c, 8080), "http://0.0.0.0:8080") << "default: bind and port";
  const char* argv[] = {
      "orcd-host",           "--model", "/m.gguf", "--bind", "0.0.0.0", "--advertise-url",
      "http://10.1.2.3:8080"};
  c = ResolveWorkerConfig(ParseCommandLine(7, argv));
  EXPECT_EQ(AdvertisedUri(c, 8080), "http://10.1.2.3:8080");
  EXPECT_NE(ErrorOf("server: {advertise_url: 10.1.2.3:8080}").find("'server.advertise_url'"),
            std::string::npos);
}

// The spec's command line (WORK-3010, WORK-3111), every flag an override.
TEST(WorkerConfig, TheSpecsCommandLineWorks) {
  const char* argv[] = {"orcd-host",
                        "--worker-id",
                        "3f2c8a1e-9b4d-4c6e-8f00-1234567890ab",
                        "--model",
                        "file:/models/m.gguf",
                        "--gpu-device",
                        "1",
                        "--port",
                        "8001",
                        "--callback-url",
                        "http://127.0.0.1:9000",
                        "--max-tokens-in",
                        "1000",
                        "--max-tokens-out",
                        "512",
                        "--inference-timeout-sec",
                        "7.5",
                        "--kv-cache-size-mb",
                        "64"};
  WorkerConfig c = ResolveWorkerConfig(ParseCommandLine(19, argv));
  EXPECT_EQ(c.worker_id, "3f2c8a1e-9b4d-4c6e-8f00-1234567890ab");
  EXPECT_EQ(c.model_path, "/models/m.gguf") << "file: locations name a local file";
  EXPECT_EQ(c.gpu_device, 1);
  EXPECT_EQ(c.port, 8001);
  EXPECT_EQ(c.callback_url, "http://127.0.0.1:9000");
  EXPECT_EQ(c.max_input_tokens, 1000);
  EXPECT_EQ(c.max_output_tokens, 512);
  EXPECT_DOUBLE_EQ(c.inference_timeout_s, 7.5);
  EXPECT_EQ(c.kv_cache_bytes, int64_t{64} << 20);
}

TEST(WorkerConfig, WorkerIdIsAUuidOrASafeName) {
  for (const char* ok :
       {"3F2C8A1E-9B4D-4C6E-8F00-1234567890AB", "worker-abc", "w7", "pool.gpu0_1"}) {
    EXPECT_TRUE(IsValidWorkerId(ok)) << ok;
  }
  for (const std::string& bad : std::vector<std::string>{"", "-lead", "has space", "quote\"", "a/b",
                                                         "tab\t", std::string(65, 'a')}) {
    EXPECT_FALSE(IsValidWorkerId(bad)) << bad;
  }
  const char* argv[] = {"orcd-host", "--model", "/m", "--worker-id", "not valid"};
  try {
    ResolveWorkerConfig(ParseCommandLine(5, argv));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("neither a UUID nor a name"), std::string::npos)
        << e.what();
  }
}

TEST(WorkerConfig, CommandLineErrors) {
  const char* unknown[] = {"orcd-host", "--bogus"};
  EXPECT_THROW(ParseCommandLine(2, unknown), Error);
  const char* missing[] = {"orcd-host", "--port"};
  EXPECT_THROW(ParseCommandLine(2, missing), Error);
  const char* bad[] = {"orcd-host", "--model", "/m", "--port", "-3"};
  try {
    ResolveWorkerConfig(ParseCommandLine(5, bad));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("command line: config key 'server.port'"),
              std::string::npos)
        << e.what();
  }
  const char* no_model[] = {"orcd-host"};
  try {
    ResolveWorkerConfig(ParseCommandLine(1, no_model));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'model.path': is required"), std::string::npos);
  }
}

TEST(WorkerConfig, HttpHardeningKeys) {
  WorkerConfig c = ParseWorkerConfig(R"(
server: {max_connections: 16, header_timeout_s: 0.5, body_timeout_s: 2, idle_timeout_s: 3,
         send_timeout_s: 4}
)",
                                     "w.yaml");
  EXPECT_EQ(c.max_connections, 16);
  EXPECT_DOUBLE_EQ(c.header_timeout_s, 0.5);
  EXPECT_DOUBLE_EQ(c.body_timeout_s, 2);
  EXPECT_DOUBLE_EQ(c.idle_timeout_s, 3);
  EXPECT_DOUBLE_EQ(c.send_timeout_s, 4);
  EXPECT_NE(ErrorOf("server: {max_connections: 1}").find("server.max_connections"),
            std::string::npos);
  EXPECT_NE(ErrorOf("server: {header_timeout_s: 0}").find("server.header_timeout_s"),
            std::string::npos);
}

TEST(WorkerConfig, AuthTokenFromAFileNeverInAnError) {
  const std::string dir = ::testing::TempDir();
  const std::string file = dir + "/orcd-token-" + std::to_string(::getpid());
  std::ofstream(file) << "tok-123\n";
  WorkerConfig c;
  c.auth_token_file = file;
  ReadAuthTokenFile(&c);
  EXPECT_EQ(c.auth_token, "tok-123") << "trailing newline dropped";
  WorkerConfig both;
  both.auth_token = "inline-secret";
  both.auth_token_file = file;
  try {
    ReadAuthTokenFile(&both);
    ADD_FAILURE() << "both accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("inline-secret"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find("tok-123"), std::string::npos);
  }
  std::ofstream(file, std::ios::trunc) << "\n";
  WorkerConfig empty;
  empty.auth_token_file = file;
  EXPECT_THROW(ReadAuthTokenFile(&empty), Error);
  WorkerConfig missing;
  missing.auth_token_file = file + ".nope";
  EXPECT_THROW(ReadAuthTokenFile(&missing), Error);
  std::remove(file.c_str());
  EXPECT_EQ(ParseWorkerConfig("server: {auth_token: abc}", "w.yaml").auth_token, "abc");
}

}  // namespace
}  // namespace orcd

namespace orcd {
namespace {

TEST(WorkerConfig, ManyUsersKeys) {
  const WorkerConfig d;
  EXPECT_EQ(d.slots, 4);
  EXPECT_EQ(d.queue_depth, 16);
  EXPECT_EQ(d.max_batched_tokens, 512);
  WorkerConfig c = ParseWorkerConfig(
      "model: {path: /m.gguf}\nserver: {slots: 8, queue_depth: 0, max_batched_tokens: 256}\n",
      "w.yaml");
  ValidateWorkerConfig(c);
  EXPECT_EQ(c.slots, 8);
  EXPECT_EQ(c.queue_depth, 0);
  EXPECT_EQ(c.max_batched_tokens, 256);
  EXPECT_EQ(GenerationOptionsFrom(c).slots, 8);
  EXPECT_EQ(GenerationOptionsFrom(c).max_batched_tokens, 256);
  EXPECT_THROW(ParseWorkerConfig("server: {slots: 0}\n", "w.yaml"), Error);
  EXPECT_THROW(ParseWorkerConfig("server: {queue_depth: -1}\n", "w.yaml"), Error);
  EXPECT_THROW(ParseWorkerConfig("server: {max_batched_tokens: 0}\n", "w.yaml"), Error);
  EXPECT_EQ(d.prompt_batch_tokens, 32);
  EXPECT_EQ(
      GenerationOptionsFrom(ParseWorkerConfig("server: {prompt_batch_tokens: 512}\n", "w.yaml"))
          .prompt_batch_tokens,
      512);
  EXPECT_THROW(ParseWorkerConfig("server: {prompt_batch_tokens: 0}\n", "w.yaml"), Error);
  EXPECT_EQ(GenerationOptionsFrom(d).step_time_target, std::chrono::milliseconds(500));
  EXPECT_EQ(GenerationOptionsFrom(ParseWorkerConfig("server: {step_time_target_ms: 0}\n", "w.yaml"))
                .step_time_target.count(),
            0)
      << "0 turns the bound off";
  EXPECT_THROW(ParseWorkerConfig("server: {step_time_target_ms: -1}\n", "w.yaml"), Error);
  EXPECT_TRUE(GenerationOptionsFrom(c).prefix_cache) << "prefix caching is on by default";
  const WorkerConfig off = ParseWorkerConfig("server: {prefix_cache: off}\n", "w.yaml");
  EXPECT_FALSE(GenerationOptionsFrom(off).prefix_cache);
  EXPECT_THROW(ParseWorkerConfig("server: {prefix_cache: maybe}\n", "w.yaml"), Error);
  EXPECT_TRUE(GenerationOptionsFrom(c).cache_answers);
  EXPECT_FALSE(
      GenerationOptionsFrom(ParseWorkerConfig("server: {prefix_cache_answers: off}\n", "w.yaml"))
          .cache_answers);
  EXPECT_EQ(GenerationOptionsFrom(c).kv_type, engine::KvType::kF16) << "f16 KV by default";
  EXPECT_EQ(GenerationOptionsFrom(ParseWorkerConfig("limits: {kv_type: q8_0}\n", "w.yaml")).kv_type,
            engine::KvType::kQ8_0);
  EXPECT_EQ(GenerationOptionsFrom(ParseWorkerConfig("limits: {kv_type: f32}\n", "w.yaml")).kv_type,
            engine::KvType::kF32);
  EXPECT_THROW(ParseWorkerConfig("limits: {kv_type: q4_0}\n", "w.yaml"), Error);
  // Every accepted job holds a connection: they must leave room for probes.
  WorkerConfig crowded = ParseWorkerConfig(
      "model: {path: /m.gguf}\nserver: {slots: 40, queue_depth: 20, max_connections: 64}\n",
      "w.yaml");
  try {
    ValidateWorkerConfig(crowded);
    ADD_FAILURE() << "slots + queue_depth filling max_connections was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("server.queue_depth"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace orcd
