// Many users of one worker at once (server.slots > 1, continuous batching),
// tried as users would: concurrent requests all get their answers, each
// exactly the answer it gets alone; past slots + queue a request gets 503
// with Retry-After; cancelling or dropping one leaves the others' answers
// unchanged; /health counts slots and KV blocks. On the CPU backend, and
// once on the CUDA backend over the emulated device.
#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/worker_process.h"

namespace orcd::testing {
namespace {

using Json = Poco::JSON::Object::Ptr;
using namespace std::chrono_literals;

Json Parse(const std::string& s) { return Poco::JSON::Parser().parse(s).extract<Json>(); }

// Where the worker runs: the CPU, or the CUDA backend on the emulated device
// (host/app/debug_device.h) with the quant plugins' emulated builds.
struct Backend {
  std::string device = "cpu";
  std::string plugin_dir = ORCD_PLUGIN_DIR;
  std::map<std::string, std::string> env;
};

std::unique_ptr<WorkerProcess> StartWorker(int slots, int queue_depth, int delay_ms = 0,
                                           const std::string& model = "qwen2-tiny.Q4_K_M.gguf",
                                           const std::string& limits = "",
                                           const Backend& backend = {},
                                           const std::string& server = "") {
  static int n = 0;
  const std::string cfg = TestFilePath("many-" + std::to_string(n++) + ".yaml");
  std::ofstream(cfg) << "worker_id: many\nlimits:\n  context_length: 512\n"
                     << limits << "server:\n  slots: " << slots
                     << "\n  queue_depth: " << queue_depth << "\n"
                     << server;
  std::map<std::string, std::string> env = backend.env;
  if (delay_ms > 0) env["ORCD_DEBUG_TOKEN_DELAY_MS"] = std::to_string(delay_ms);
  auto w = std::make_unique<WorkerProcess>(
      std::vector<std::string>{"--config", cfg, "--model", FixtureModel(model), "--device",
                               backend.device, "--threads", "2", "--plugin-dir",
                               backend.plugin_dir},
      env);
  EXPECT_TRUE(w->ready()) << w->Logs();
  return w;
}

// /health once every job has ended and the scheduler has freed their KV
// blocks (it does so before its next step, just after the answers went out).
Json IdleHealth(int port) {
  for (int i = 0; i < 100; ++i) {
    const Json h = Parse(HttpGet(port, "/health").body);
    if (h->getValue<int>("slots_busy") == 0 &&
        h->getValue<int>("kv_blocks_free") == h->getValue<int>("kv_blocks_total")) {
      return h;
    }
    std::this_thread::sleep_for(20ms);
  }
  return Parse(HttpGet(port, "/health").body);
}

// A sample's value in /metrics' text (`name` with its labels), -1 when absent.
double MetricValue(const std::string& metrics, const std::string& name) {
  const size_t at = metrics.find("\n" + name + " ");
  return at == std::string::npos ? -1.0 : std::stod(metrics.substr(at + name.size() + 2));
}

// Distinct prompts of different lengths; greedy and seeded sampling.
struct Ask {
  std::string prompt;
  std::string sampling;
};
const std::vector<Ask>& Asks() {
  static const std::vector<Ask> asks = {
      {"The quick brown fox", R"("temperature":0)"},
      {"Once upon a time, in a land far away, there lived", R"("temperature":0.8,"seed":7)"},
      {"1 2 3", R"("temperature":0)"},
      {"A long, winding road leads over the hills and through the forest to the sea, where",
       R"("temperature":1.0,"top_k":40,"seed":99)"},
      {"Hello", R"("temperature":0.7,"top_p":0.9,"seed":3)"},
      {"Why is the sky blue? Because", R"("temperature":0)"},
      {"x", R"("temperature":1.2,"seed":12345)"},
      {"In 1969 the first humans walked on", R"("temperature":0)"},
  };
  return asks;
}

std::string Body(const Ask& a, int max_tokens) {
  return R"({"model":"m","prompt":")" + a.prompt + R"(","max_tokens":)" +
         std::to_string(max_tokens) + "," + a.sampling + "}";
}

std::string Text(const HttpResponse& r) {
  if (r.status != 200) return "HTTP " + std::to_string(r.status) + ": " + r.body;
  return Parse(r.body)->getArray("choices")->getObject(0)->getValue<std::string>("text");
}

// The first n asks' answers each alone, then the responses to all of them
// sent at once; each answer may take timeout_s to arrive.
struct SoloAndTogether {
  std::vector<std::string> solo;
  std::vector<HttpResponse> together;
};
SoloAndTogether AskAloneThenTogether(int port, int n, int max_tokens, int timeout_s = 30) {
  SoloAndTogether out;
  for (int i = 0; i < n; ++i) {
    out.solo.push_back(
        Text(HttpPost(port, "/v1/completions", Body(Asks()[i], max_tokens), {}, timeout_s)));
  }
  std::vector<std::future<HttpResponse>> together;
  for (int i = 0; i < n; ++i) {
    together.push_back(std::async(std::launch::async, [=] {
      return HttpPost(port, "/v1/completions", Body(Asks()[i], max_tokens), {}, timeout_s);
    }));
  }
  for (auto& f : together) out.together.push_back(f.get());
  return out;
}

TEST(ManyUsers, EightAtOnceEachGetTheirSoloAnswer) {
  auto w = StartWorker(8, 8);
  constexpr int kTokens = 24;
  std::vector<std::string> solo;
  for (const Ask& a : Asks())
    solo.push_back(Text(HttpPost(w->port(), "/v1/completions", Body(a, kTokens))));
  for (int round = 0; round < 2; ++round) {
    std::vector<std::future<HttpResponse>> together;
    for (const Ask& a : Asks()) {
      together.push_back(std::async(std::launch::async, [&, a] {
        return HttpPost(w->port(), "/v1/completions", Body(a, kTokens));
      }));
    }
    for (size_t i = 0; i < together.size(); ++i) {
      const HttpResponse r = together[i].get();
      ASSERT_EQ(r.status, 200) << r.body;
      EXPECT_EQ(Text(r), solo[i]) << "request " << i << " (round " << round
                                  << ") differs from its solo answer";
    }
  }
  // The steps were shared: more than one sequence per step on average.
  const std::string metrics = HttpGet(w->port(), "/metrics").body;
  const auto value = [&](const std::string& name) { return MetricValue(metrics, name); };
  EXPECT_GT(value("worker_steps_total"), 0) << metrics;
  EXPECT_GT(value("worker_step_sequences_total"), 1.5 * value("worker_steps_total")) << metrics;
  EXPECT_EQ(value("worker_step_sequences_count"), value("worker_steps_total"));
  EXPECT_EQ(value("worker_step_seconds_count"), value("worker_steps_total")) << "every step timed";
  // Every job's queue wait; every token gap after the first token (8 + 16 jobs).
  EXPECT_EQ(value("worker_queue_wait_seconds_count"), 24) << metrics;
  EXPECT_GE(value("worker_inter_token_latency_seconds_count"), 24 * 10) << metrics;
  const Json health = IdleHealth(w->port());
  EXPECT_EQ(health->getValue<int>("slots_total"), 8);
  EXPECT_EQ(health->getValue<int>("slots_busy"), 0);
  EXPECT_EQ(health->getValue<int>("kv_blocks_free"), health->getValue<int>("kv_blocks_total"))
      << "every sequence's KV blocks came back";
}

// The count of steps whose token count fell in (lo, hi] (worker_step_tokens'
// buckets, lo and hi two of its bounds).
double StepsOfTokens(const std::string& metrics, const std::string& lo, const std::string& hi) {
  const auto bucket = [&](const std::string& le) {
    return MetricValue(metrics, "worker_step_tokens_bucket{le=\"" + le + "\"}");
  };
  return bucket(hi) - bucket(lo);
}

// A newcomer's long prompt while another job streams. With
// server.step_time_target_ms (here 1 ms: always the least chunk, 16 tokens)
// the prompt is evaluated 16 tokens a step beside the other's next token,
// instead of in one long step that holds that token up; either way both
// answers are bit for bit their solo ones (a prompt's chunking, now chosen
// by measured times, never changes its bits).
TEST(ManyUsers, ALongPromptIsChunkedBetweenAnotherJobsTokens) {
  std::string words;
  for (int i = 0; i < 30; ++i) words += "the rain in spain falls mainly on the plain ";
  const std::string long_body =
      R"({"model":"m","prompt":")" + words + R"(","max_tokens":12,"temperature":0.9,"seed":11})";
  // Sampled, not greedy: a change in any logit bit would show in the text.
  const std::string streamer = R"({"job_id":"s","prompt":"Once upon a time","max_tokens":200,)"
                               R"("temperature":1.0,"seed":5})";
  const auto tokens_of = [](SseStream& s) {  // the events after "started"
    std::string out;
    for (const SseEvent& e : s.ReadAll()) {
      if (e.event != "started") out += e.event == "token" ? e.data : "|" + e.event;
    }
    return out;
  };
  for (const int target_ms : {0, 1}) {
    SCOPED_TRACE("step_time_target_ms " + std::to_string(target_ms));
    // No prefix cache: the long prompt's solo run would otherwise leave its
    // blocks for the second run to map instead of evaluating.
    auto w = StartWorker(
        2, 2, 0, "qwen2-tiny.Q4_K_M.gguf", "", {},
        "  prefix_cache: off\n  step_time_target_ms: " + std::to_string(target_ms) + "\n");
    const HttpResponse long_solo = HttpPost(w->port(), "/v1/completions", long_body);
    ASSERT_EQ(long_solo.status, 200) << long_solo.body;
    ASSERT_GT(Parse(long_solo.body)->getObject("usage")->getValue<int>("prompt_tokens"), 64)
        << "the prompt must need more than one 64-token bucket of a step";
    SseStream streamer_solo(w->port(), "/execute", streamer);
    const std::string streamed_solo = tokens_of(streamer_solo);
    const double chunked_before = StepsOfTokens(HttpGet(w->port(), "/metrics").body, "16", "64");

    SseStream stream(w->port(), "/execute", streamer);
    ASSERT_EQ(stream.status(), 200);
    ASSERT_EQ(stream.Next()->event, "started");
    const std::optional<SseEvent> first = stream.Next();
    ASSERT_TRUE(first.has_value());
    ASSERT_EQ(first->event, "token");
    const HttpResponse long_together = HttpPost(w->port(), "/v1/completions", long_body);
    EXPECT_EQ(Text(long_together), Text(long_solo));
    EXPECT_EQ(first->data + tokens_of(stream), streamed_solo)
        << "the streaming job's tokens changed beside the long prompt";
    const double chunked =
        StepsOfTokens(HttpGet(w->port(), "/metrics").body, "16", "64") - chunked_before;
    if (target_ms == 0) {
      EXPECT_EQ(chunked, 0) << "unbounded, the prompt goes in one step";
    } else {
      // Steps of 16 prompt tokens and the streamer's 1; at least a few of
      // them (the streamer may be a moment late for some step, which then
      // takes more of the prompt).
      EXPECT_GE(chunked, 3) << HttpGet(w->port(), "/metrics").body;
    }
  }
}

// orcd-host's CUDA backend on the emulated device, with the llama arch plugin
// beside the emulated q4 plugin (a directory of links, made once).
Backend EmulatedCuda() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path d = TestFilePath("emulated-plugins");
    std::filesystem::create_directories(d);
    std::filesystem::permissions(
        d, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
               std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
               std::filesystem::perms::others_exec);  // plugin_file_safety
    for (const auto& [from, name] :
         {std::pair{std::string(ORCD_PLUGIN_DIR), "orcd-plugin-llama.so"},
          std::pair{std::string(ORCD_EMULATED_PLUGIN_DIR), "orcd-plugin-q4.so"}}) {
      std::filesystem::remove(d / name);
      std::filesystem::create_symlink(std::filesystem::path(from) / name, d / name);
    }
    return d;
  }();
  return {"cuda", dir.string(), {{"ORCD_DEBUG_EMULATED_CUDA_MIB", "512"}}};
}

// The CUDA backend's batching (decode steps of every running job, prompts one
// job's chunk per step) through orcd-host on the emulated device: four
// requests at once, greedy and seeded, each get their solo answer.
TEST(ManyUsers, OnTheEmulatedCudaDeviceFourAtOnceEachGetTheirSoloAnswer) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the emulated device takes minutes under AddressSanitizer; the engine's "
                  "CUDA steps run there in-process (CudaSteps.EachSequenceGetsItsSoloBits)";
#endif
  auto w = StartWorker(4, 4, 0, "qwen2-tiny.Q4_K_M.gguf", "", EmulatedCuda());
  ASSERT_NE(w->Logs().find("emulated"), std::string::npos) << w->Logs();
  const SoloAndTogether answers = AskAloneThenTogether(w->port(), 4, 12, 120);  // emulated: slow
  for (int i = 0; i < 4; ++i) {
    const HttpResponse& r = answers.together[i];
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(Text(r), answers.solo[i]) << "request " << i << " differs from its solo answer";
  }
  const std::string metrics = HttpGet(w->port(), "/metrics").body;
  const auto value = [&](const std::string& name) {
    const size_t at = metrics.find("\n" + name + " ");
    return at == std::string::npos ? -1.0 : std::stod(metrics.substr(at + name.size() + 2));
  };
  EXPECT_GT(value("worker_step_sequences_total"), value("worker_steps_total"))
      << "no step held more than one job: " << metrics;
  const Json health = IdleHealth(w->port());
  EXPECT_EQ(health->getValue<int>("slots_total"), 4);
  EXPECT_EQ(health->getValue<int>("kv_blocks_free"), health->getValue<int>("kv_blocks_total"));
}

// A device KV pool of four blocks, one per request's prompt, while two of
// the requests grow past one block: as they grow the latest admitted are
// preempted and recompute (their prompt as a prompt step, their generated
// tokens one per decode step); every request still gets its solo answer.
// (Short answers and a client that waits 120 s for each: the emulated device
// runs every CUDA thread on the host, and CI's other tests load the machine;
// what is tested is the answers, not their speed.)
TEST(ManyUsers, OnTheEmulatedCudaDeviceASmallKvPoolPreemptsAndRecomputesTheSameAnswers) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the emulated device takes minutes under AddressSanitizer";
#endif
  // qwen2-tiny Q4_K_M: 1 KiB of K and V per position; 4 blocks of 32.
  auto w =
      StartWorker(4, 4, 0, "qwen2-tiny.Q4_K_M.gguf", "  kv_cache_bytes: 131072\n", EmulatedCuda());
  ASSERT_EQ(Parse(HttpGet(w->port(), "/health").body)->getValue<int>("kv_blocks_total"), 4);
  const SoloAndTogether answers = AskAloneThenTogether(w->port(), 4, 24, 120);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(Text(answers.together[i]), answers.solo[i]) << "request " << i;
  EXPECT_GT(MetricValue(HttpGet(w->port(), "/metrics").body, "worker_preemptions_total"), 0)
      << "the pool was never short (or the metric is gone): no preemption tested";
  EXPECT_EQ(IdleHealth(w->port())->getValue<int>("kv_blocks_free"), 4);
}

TEST(ManyUsers, PastSlotsAndQueueA503WithRetryAfterAndTheQueuedStillAnswer) {
  auto w = StartWorker(2, 1, 30);
  const Ask& a = Asks()[0];
  std::vector<std::future<HttpResponse>> accepted;
  for (int i = 0; i < 3; ++i) {
    accepted.push_back(std::async(
        std::launch::async, [&] { return HttpPost(w->port(), "/v1/completions", Body(a, 20)); }));
  }
  // Wait until all three are accepted (two running, one queued).
  for (int i = 0; i < 200; ++i) {
    const Json h = Parse(HttpGet(w->port(), "/health").body);
    if (h->getValue<int>("slots_busy") == 2 && h->getValue<int>("queue_depth") == 1) break;
    std::this_thread::sleep_for(10ms);
  }
  const Json h = Parse(HttpGet(w->port(), "/health").body);
  EXPECT_EQ(h->getValue<std::string>("state"), "busy");
  EXPECT_EQ(h->getValue<std::string>("status"), "healthy");
  EXPECT_EQ(h->getValue<int>("queue_depth"), 1);
  const HttpResponse refused = HttpPost(w->port(), "/v1/completions", Body(a, 5));
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.headers.at("Retry-After"), "1");
  const HttpResponse refused_execute =
      HttpPost(w->port(), "/execute", R"({"job_id":"x","prompt":"hi","max_tokens":2})");
  EXPECT_EQ(refused_execute.status, 503);
  EXPECT_EQ(Parse(refused_execute.body)->getValue<std::string>("code"), "WORKER_BUSY");
  const std::string solo = Text(accepted[0].get());
  EXPECT_EQ(Text(accepted[1].get()), solo);
  EXPECT_EQ(Text(accepted[2].get()), solo) << "the queued request is answered, not dropped";
}

TEST(ManyUsers, CancellingOrDroppingOneLeavesTheOthersUnchanged) {
  auto w = StartWorker(4, 4, 10);
  const Ask& a = Asks()[1];
  const std::string solo = Text(HttpPost(w->port(), "/v1/completions", Body(a, 30)));
  const std::string job =
      R"({"job_id":"victim","prompt":"The quick brown fox","max_tokens":400,"temperature":0})";
  SseStream victim(w->port(), "/execute", job);
  ASSERT_EQ(victim.status(), 200);
  SseStream dropped(w->port(), "/execute",
                    R"({"job_id":"dropped","prompt":"abc","max_tokens":400,"temperature":0})");
  ASSERT_EQ(dropped.status(), 200);
  std::vector<std::future<HttpResponse>> others;
  for (int i = 0; i < 2; ++i) {
    others.push_back(std::async(
        std::launch::async, [&] { return HttpPost(w->port(), "/v1/completions", Body(a, 30)); }));
  }
  ASSERT_EQ(victim.Next()->event, "started");
  ASSERT_EQ(victim.Next()->event, "token");
  ASSERT_EQ(dropped.Next()->event, "started");
  dropped.Close();  // the client vanishes
  EXPECT_EQ(HttpPost(w->port(), "/cancel", R"({"job_id":"victim"})").status, 202);
  std::optional<SseEvent> e;
  while ((e = victim.Next()) && e->event == "token") {
  }
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->event, "error");
  EXPECT_EQ(Parse(e->data)->getValue<std::string>("code"), "CANCELLED");
  for (auto& f : others) EXPECT_EQ(Text(f.get()), solo);
  // Both ended sequences gave their blocks back.
  const Json h = IdleHealth(w->port());
  EXPECT_EQ(h->getValue<int>("slots_busy"), 0);
  EXPECT_EQ(h->getValue<int>("kv_blocks_free"), h->getValue<int>("kv_blocks_total"));
}

// A KV pool with room for two of the four slots' requests at their full
// length: all four start, and as they grow the latest admitted are preempted
// and recompute later; every request still gets its solo answer. One that
// alone needs more than the pool is refused with a reason; the rest go on.
TEST(ManyUsers, ASmallKvPoolPreemptsAndRecomputesTheSameAnswers) {
  // qwen2-tiny Q4_K_M: 1 KiB of K and V per position (all layers);
  // 12 blocks of 32 positions = 384 KiB, room for two requests of 170 positions.
  auto w = StartWorker(4, 4, 2, "qwen2-tiny.Q4_K_M.gguf", "  kv_cache_bytes: 393216\n");
  const Json h0 = Parse(HttpGet(w->port(), "/health").body);
  ASSERT_EQ(h0->getValue<int>("kv_blocks_total"), 12) << "the fixture's KV bytes changed";
  std::vector<std::string> solo;
  for (int i = 0; i < 4; ++i) {
    solo.push_back(Text(HttpPost(w->port(), "/v1/completions", Body(Asks()[i], 150))));
  }
  std::vector<std::future<HttpResponse>> together;
  for (int i = 0; i < 4; ++i) {
    together.push_back(std::async(std::launch::async, [&, i] {
      return HttpPost(w->port(), "/v1/completions", Body(Asks()[i], 150));
    }));
  }
  const HttpResponse huge = HttpPost(w->port(), "/v1/completions", Body(Asks()[0], 500));
  EXPECT_EQ(huge.status, 400) << huge.body;  // 500 positions: more than the pool holds
  EXPECT_NE(huge.body.find("KV pool"), std::string::npos) << huge.body;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(Text(together[i].get()), solo[i]) << "request " << i;
  EXPECT_GT(MetricValue(HttpGet(w->port(), "/metrics").body, "worker_preemptions_total"), 0)
      << "the pool was never short (or the metric is gone): no preemption tested";
  const Json h = IdleHealth(w->port());
  EXPECT_EQ(h->getValue<int>("kv_blocks_free"), 12);
}

TEST(ManyUsers, GptOssSlidingWindowsAndMoeAcrossConcurrentRequests) {
  auto w = StartWorker(4, 0, 0, "gptoss-tiny.MXFP4_MOE.gguf");
  const SoloAndTogether answers = AskAloneThenTogether(w->port(), 4, 40);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(Text(answers.together[i]), answers.solo[i]) << "request " << i;
}

}  // namespace
}  // namespace orcd::testing

namespace orcd::testing {
namespace {

// 1,000 requests from 8 clients (some streamed and dropped half-way, some
// cancelled): every one ends as it should, nothing is refused (8 slots), the
// KV pool is whole at the end and the worker's memory does not grow with the
// requests served.
TEST(ManyUsers, SoakAtEightClients) {
  auto w = StartWorker(8, 8, 0, "qwen2-tiny.Q4_0.gguf");
  constexpr int kClients = 8;
  constexpr int kPerClient = 125;
  std::atomic<int> ok{0}, dropped{0}, cancelled{0}, bad{0};
  std::atomic<int64_t> rss_warm{-1};
  std::atomic<int> done{0};
  const auto client = [&](int c) {
    for (int i = 0; i < kPerClient; ++i) {
      const Ask& a = Asks()[static_cast<size_t>((c + i) % Asks().size())];
      const int kind = (c * kPerClient + i) % 10;
      if (kind == 7) {  // a client that vanishes after its first token
        SseStream s(w->port(), "/execute",
                    R"({"job_id":"drop-)" + std::to_string(c) + "-" + std::to_string(i) +
                        R"(","prompt":"abc","max_tokens":50,"temperature":0})");
        if (s.status() == 200 && s.Next() && s.Next()) {
          s.Close();
          ++dropped;
        } else {
          ++bad;
        }
      } else if (kind == 9) {  // cancelled by id while it runs
        const std::string id = "cancel-" + std::to_string(c) + "-" + std::to_string(i);
        SseStream s(
            w->port(), "/execute",
            R"({"job_id":")" + id + R"(","prompt":"abc","max_tokens":400,"temperature":0})");
        if (s.status() != 200 || !s.Next()) {
          ++bad;
          continue;
        }
        HttpPost(w->port(), "/cancel", R"({"job_id":")" + id + R"("})");
        const std::string last = s.LastEvent();
        (last == "error" ? cancelled : bad)++;
      } else {
        const HttpResponse r = HttpPost(w->port(), "/v1/completions", Body(a, 8));
        (r.status == 200 ? ok : bad)++;
      }
      if (++done == 200) rss_warm = RssKb(w->pid());  // after a warm-up share
    }
  };
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c) threads.emplace_back(client, c);
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(ok + dropped + cancelled, kClients * kPerClient);
  const Json h = IdleHealth(w->port());
  EXPECT_EQ(h->getValue<int>("kv_blocks_free"), h->getValue<int>("kv_blocks_total"));
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "RSS not compared under AddressSanitizer (its quarantine holds freed memory)";
#endif
  const int64_t rss_end = RssKb(w->pid());
  ASSERT_GT(rss_warm.load(), 0);
  // Flat within 1 % (plus 512 kB for the allocator's page granularity).
  EXPECT_LE(rss_end, rss_warm + rss_warm / 100 + 512)
      << "RSS grew from " << rss_warm << " kB to " << rss_end << " kB over "
      << kClients * kPerClient - 200 << " requests";
}

}  // namespace
}  // namespace orcd::testing
