// The real orcd-host on a loopback port with a fixture model on the CPU
// backend, driven over HTTP: the SSE grammar, validation, busy rejection,
// cancel, client disconnect, timeout, shutdown and SIGTERM, health, metrics,
// seeded reproducibility, multibyte text, and the slot free for the next job
// as soon as an answer ends, on every endpoint.
#include <gtest/gtest.h>
#include <signal.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <atomic>
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

// Worker on qwen2-tiny (F16). `yaml` adds config; `delay_ms` slows each
// decode step (ORCD_DEBUG_TOKEN_DELAY_MS) so timing tests are deterministic.
std::unique_ptr<WorkerProcess> StartWorker(const std::string& yaml = "", int delay_ms = 0,
                                           const std::string& model = "qwen2-tiny.F16.gguf") {
  static int n = 0;
  const std::string cfg = TestFilePath("it-" + std::to_string(n++) + ".yaml");
  // One slot, no queue (the M0 single-job contract these tests pin);
  // `yaml` adds limits keys.
  std::ofstream(cfg) << "worker_id: it-worker\nserver:\n  slots: 1\n  queue_depth: 0\n"
                     << "limits:\n  context_length: 4096\n"
                     << yaml;
  std::map<std::string, std::string> env;
  if (delay_ms > 0) env["ORCD_DEBUG_TOKEN_DELAY_MS"] = std::to_string(delay_ms);
  auto w = std::make_unique<WorkerProcess>(
      std::vector<std::string>{"--config", cfg, "--model", FixtureModel(model), "--device", "cpu",
                               "--plugin-dir", ORCD_PLUGIN_DIR},
      env);
  EXPECT_TRUE(w->ready()) << w->Logs();
  return w;
}

// Greedy unless `extra` says otherwise: a sampled job with the default
// random seed may draw the end token at once, and these tests count on the
// job running (a HealthAndMetrics run once saw 0 tokens out of 3).
std::string Job(const std::string& id, int max_tokens, const std::string& extra = "") {
  const std::string sampling =
      extra.find("\"temperature\"") == std::string::npos ? R"(,"temperature":0)" : "";
  return R"({"job_id":")" + id + R"(","prompt":"The quick brown fox","max_tokens":)" +
         std::to_string(max_tokens) + sampling + extra + "}";
}

TEST(Server, SseGrammarStartedTokensEnd) {
  auto w = StartWorker();
  SseStream s(w->port(), "/execute", Job("g1", 12, R"(,"temperature":0)"));
  ASSERT_EQ(s.status(), 200) << s.error_body();
  auto events = s.ReadAll();
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events.front().event, "started");
  Json started = Parse(events.front().data);
  EXPECT_EQ(started->getValue<std::string>("job_id"), "g1");
  EXPECT_EQ(started->getValue<std::string>("model"), "qwen2-tiny");
  EXPECT_TRUE(started->has("started_at"));
  EXPECT_EQ(events.back().event, "end");
  int tokens = 0;
  for (size_t k = 1; k + 1 < events.size(); ++k) {
    ASSERT_EQ(events[k].event, "token") << "only token events between started and end";
    Json t = Parse(events[k].data);
    EXPECT_EQ(t->getValue<int>("i"), tokens) << "indices count up from 0";
    EXPECT_TRUE(IsValidUtf8(t->getValue<std::string>("t")));
    ++tokens;
  }
  Json end = Parse(events.back().data);
  EXPECT_EQ(end->getValue<int>("tokens_out"), tokens);
  EXPECT_EQ(tokens, 12) << "greedy on a random model never hits EOS this fast";
  EXPECT_EQ(end->getValue<std::string>("stop_reason"), "max_tokens");
  EXPECT_TRUE(end->has("decode_time_ms"));
}

TEST(Server, ValidationErrorsAreHttp400NamingTheField) {
  auto w = StartWorker();
  struct Case {
    std::string body, field;
  } cases[] = {{"{", ""},
               {R"({"prompt":"x"})", "job_id"},
               {R"({"job_id":"v","prompt":""})", "prompt"},
               {R"({"job_id":"v","prompt":"x","max_tokens":0})", "max_tokens"},
               {R"({"job_id":"v","prompt":"x","temperature":3})", "temperature"},
               {R"({"job_id":"v","prompt":"x","top_p":2})", "top_p"},
               {R"({"job_id":"v","prompt":"x","top_k":99999})", "top_k"},
               {R"({"job_id":"v","prompt":"x","repetition_penalty":5})", "repetition_penalty"},
               {R"({"job_id":"v","prompt":"x","min_p":-1})", "min_p"},
               {R"({"job_id":"v","prompt":"x","stop":["a","b","c","d","e"]})", "stop"},
               {R"({"job_id":"v","prompt":"x","seed":-5})", "seed"}};
  for (const auto& c : cases) {
    HttpResponse r = HttpPost(w->port(), "/execute", c.body);
    EXPECT_EQ(r.status, 400) << c.body;
    Json j = Parse(r.body);
    EXPECT_EQ(j->getValue<std::string>("code"), "INVALID_REQUEST");
    if (!c.field.empty()) {
      EXPECT_EQ(j->getValue<std::string>("field"), c.field) << r.body;
    }
    EXPECT_FALSE(j->getValue<bool>("retriable"));
  }
  // A prompt longer than the context in tokens.
  std::string long_prompt(20000, 'x');
  for (int i = 0; i < 1000; ++i) long_prompt[static_cast<size_t>(i * 20)] = ' ';
  HttpResponse too_long =
      HttpPost(w->port(), "/execute", R"({"job_id":"v","prompt":")" + long_prompt + "\"}");
  EXPECT_EQ(too_long.status, 400) << too_long.body;
  EXPECT_EQ(HttpGet(w->port(), "/nope").status, 404);
  EXPECT_EQ(HttpGet(w->port(), "/execute").status, 405);
  EXPECT_EQ(HttpPost(w->port(), "/execute", std::string(2 << 20, ' ')).status, 413);
  // The worker is still fine afterwards.
  SseStream s(w->port(), "/execute", Job("after", 2));
  EXPECT_EQ(s.status(), 200);
  EXPECT_EQ(s.LastEvent(), "end");
}

TEST(Server, SecondRequestWhileBusyGets503AndFirstJobIsUndisturbed) {
  auto w = StartWorker("", 20);
  SseStream first(w->port(), "/execute", Job("busy-1", 30, R"(,"temperature":0,"seed":1)"));
  ASSERT_EQ(first.status(), 200);
  ASSERT_EQ(first.Next()->event, "started");
  ASSERT_EQ(first.Next()->event, "token");
  HttpResponse second = HttpPost(w->port(), "/execute", Job("busy-2", 5));
  EXPECT_EQ(second.status, 503);
  EXPECT_EQ(Parse(second.body)->getValue<std::string>("code"), "WORKER_BUSY");
  EXPECT_TRUE(Parse(second.body)->getValue<bool>("retriable"));
  EXPECT_EQ(second.headers["Retry-After"], "1");
  auto rest = first.ReadAll();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back().event, "end");
  EXPECT_EQ(Parse(rest.back().data)->getValue<int>("tokens_out"), 30);
}

// A client that reads the end of one answer and sends its next request at
// once must find the single slot free, on every endpoint: the slot is given
// back before the answer's last bytes, not after them (the bench once saw a
// 503 in every 10-20 back-to-back requests to the OpenAI endpoints).
TEST(Server, EveryEndpointTakesTheNextJobAsSoonAsTheLastOneEnds) {
  auto w = StartWorker();
  const std::string chat = R"("messages":[{"role":"user","content":"Hi"}],"temperature":0)";
  // Streams are read up to their last event only, as SDK clients stop there.
  const auto stream_to = [&](const std::string& path, const std::string& body,
                             const std::string& last_event, const std::string& last_data) {
    SseStream s(w->port(), path, body);
    if (s.status() != 200) return "HTTP " + std::to_string(s.status()) + " " + s.error_body();
    while (auto e = s.Next()) {
      if ((!last_event.empty() && e->event == last_event) ||
          (!last_data.empty() && e->data == last_data)) {
        return std::string("ok");
      }
    }
    return std::string("the stream ended without its last event");
  };
  const auto post = [&](const std::string& path, const std::string& body) {
    const HttpResponse r = HttpPost(w->port(), path, body);
    return r.status == 200 ? std::string("ok") : "HTTP " + std::to_string(r.status) + " " + r.body;
  };
  for (int round = 0; round < 10; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    EXPECT_EQ(post("/v1/completions", R"({"prompt":"Hello","max_tokens":2,"temperature":0})"),
              "ok");
    EXPECT_EQ(stream_to("/v1/completions",
                        R"({"prompt":"Hello","max_tokens":2,"temperature":0,"stream":true})", "",
                        "[DONE]"),
              "ok");
    EXPECT_EQ(post("/v1/chat/completions", "{" + chat + R"(,"max_tokens":2})"), "ok");
    EXPECT_EQ(stream_to("/v1/chat/completions", "{" + chat + R"(,"max_tokens":2,"stream":true})",
                        "", "[DONE]"),
              "ok");
    EXPECT_EQ(post("/v1/messages", "{" + chat + R"(,"max_tokens":2})"), "ok");
    EXPECT_EQ(stream_to("/v1/messages", "{" + chat + R"(,"max_tokens":2,"stream":true})",
                        "message_stop", ""),
              "ok");
    EXPECT_EQ(post("/v1/responses", R"({"input":"Hi","max_output_tokens":2,"temperature":0})"),
              "ok");
    EXPECT_EQ(stream_to("/v1/responses",
                        R"({"input":"Hi","max_output_tokens":2,"temperature":0,"stream":true})",
                        "response.incomplete", ""),
              "ok");
    EXPECT_EQ(stream_to("/execute", Job("next-" + std::to_string(round), 2), "end", ""), "ok");
  }
}

TEST(Server, CancelEndsTheStreamWithCancelledWithin100ms) {
  auto w = StartWorker("", 20);
  SseStream s(w->port(), "/execute", Job("c1", 500));
  ASSERT_EQ(s.status(), 200);
  ASSERT_EQ(s.Next()->event, "started");
  ASSERT_EQ(s.Next()->event, "token");
  const auto t0 = std::chrono::steady_clock::now();
  HttpResponse r = HttpPost(w->port(), "/cancel", R"({"job_id":"c1"})");
  EXPECT_EQ(r.status, 202);
  std::optional<SseEvent> e;
  while ((e = s.Next()) && e->event == "token") {
  }
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->event, "error");
  EXPECT_EQ(Parse(e->data)->getValue<std::string>("code"), "CANCELLED");
  EXPECT_LT(elapsed, 100ms) << "cancel takes effect between tokens (20 ms apart here)";
  EXPECT_EQ(HttpPost(w->port(), "/cancel", R"({"job_id":"c1"})").status, 202) << "idempotent";
  EXPECT_EQ(HttpPost(w->port(), "/cancel", R"({"job_id":"unknown"})").status, 202);
  EXPECT_EQ(HttpPost(w->port(), "/cancel", R"({})").status, 400);
}

// /cancel and the health probes are answered on the I/O thread: never
// SERVER_OVERLOADED, however many arrive while jobs hold the handler threads
// (a probe found 9-15 of 800 cancels from 8 threads refused when /cancel
// needed a handler thread).
TEST(Server, CancelAndHealthAreNeverRefusedAsOverloaded) {
  auto w = StartWorker("", 20);
  SseStream job(w->port(), "/execute", Job("long", 500));
  ASSERT_EQ(job.status(), 200);
  ASSERT_EQ(job.Next()->event, "started");
  // Each request on a new connection, as the probe sent them. A transport
  // error is counted apart: through Poco's client about 1 connection in 500
  // is reset under this churn, where 2,400 raw-socket requests from 8
  // threads (keep-alive or close, a job streaming) see none: an open
  // finding, not this test's subject. A refusal is a status: never a 503.
  std::atomic<int> transport_errors{0};
  const auto status_of = [&](auto&& request) {
    try {
      return request().status;
    } catch (const std::exception&) {
      ++transport_errors;
      return 0;
    }
  };
  std::vector<std::future<std::vector<int>>> clients;
  for (int c = 0; c < 8; ++c) {
    clients.push_back(std::async(std::launch::async, [&, c] {
      std::vector<int> statuses;
      for (int i = 0; i < 50; ++i) {
        const std::string body =
            R"({"job_id":"nobody-)" + std::to_string(c) + "-" + std::to_string(i) + R"("})";
        statuses.push_back(status_of([&] { return HttpPost(w->port(), "/cancel", body); }));
        const char* probe = i % 2 ? "/health" : "/health/ready";
        statuses.push_back(status_of([&] { return HttpGet(w->port(), probe); }));
      }
      return statuses;
    }));
  }
  int answered = 0;
  for (auto& c : clients) {
    for (int status : c.get()) {
      if (status == 0) continue;
      EXPECT_TRUE(status == 202 || status == 200) << status;
      ++answered;
    }
  }
  EXPECT_LE(transport_errors.load(), 16) << "of 800 requests";
  EXPECT_GE(answered, 784);
  EXPECT_EQ(HttpPost(w->port(), "/cancel", R"({"job_id":"long"})").status, 202);
  EXPECT_EQ(job.LastEvent(), "error") << "the running job was cancelled";
}

TEST(Server, ClientDisconnectCancelsTheJob) {
  auto w = StartWorker("", 10);
  {
    SseStream s(w->port(), "/execute", Job("gone", 1000));
    ASSERT_EQ(s.Next()->event, "started");
    s.Close();
  }
  bool idle = false;
  for (int i = 0; i < 200 && !idle; ++i) {
    std::this_thread::sleep_for(10ms);
    idle = !Parse(HttpGet(w->port(), "/health").body)->getValue<bool>("busy");
  }
  EXPECT_TRUE(idle) << "the job should stop within a few tokens of the client leaving";
  EXPECT_NE(
      HttpGet(w->port(), "/metrics").body.find("worker_requests_total{outcome=\"client_gone\"} 1"),
      std::string::npos);
}

TEST(Server, InferenceTimeout) {
  auto w = StartWorker("  inference_timeout_s: 0.3\n", 50);
  SseStream s(w->port(), "/execute", Job("slow", 100));
  auto events = s.ReadAll();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().event, "error");
  Json e = Parse(events.back().data);
  EXPECT_EQ(e->getValue<std::string>("code"), "INFERENCE_TIMEOUT");
  EXPECT_LT(events.size(), 20u);
}

void ExpectGracefulStop(bool use_signal) {
  auto w = StartWorker("", 20);
  SseStream s(w->port(), "/execute", Job("drain", 25));
  ASSERT_EQ(s.Next()->event, "started");
  if (use_signal) {
    w->Signal(SIGTERM);
  } else {
    EXPECT_EQ(HttpPost(w->port(), "/shutdown", "{}").status, 202);
  }
  std::this_thread::sleep_for(50ms);
  // New work is refused while the running job finishes.
  HttpResponse refused = HttpPost(w->port(), "/execute", Job("late", 2));
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(Parse(refused.body)->getValue<std::string>("code"), "SHUTTING_DOWN");
  EXPECT_EQ(HttpGet(w->port(), "/health/ready").status, 503);
  auto rest = s.ReadAll();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back().event, "end") << "the running job completes";
  EXPECT_EQ(w->WaitExit(10s), 0) << w->Logs();
}

TEST(Server, ShutdownEndpointDrainsAndExitsZero) { ExpectGracefulStop(false); }
TEST(Server, SigtermDrainsAndExitsZero) { ExpectGracefulStop(true); }

TEST(Server, HealthAndMetrics) {
  auto w = StartWorker();
  Json h = Parse(HttpGet(w->port(), "/health").body);
  // The spec's /health (M0-W-1320, WORK-3041) and the lifecycle (WORK-3015).
  EXPECT_EQ(h->getValue<std::string>("status"), "healthy");
  EXPECT_EQ(h->getValue<std::string>("state"), "ready");
  EXPECT_TRUE(h->getValue<bool>("healthy"));
  EXPECT_EQ(h->getValue<std::string>("model"), "qwen2-tiny");
  EXPECT_TRUE(h->getValue<bool>("resident"));
  EXPECT_EQ(h->getValue<std::string>("quant_kind"), "F16");
  EXPECT_EQ(h->getValue<std::string>("tokenizer_kind"), "gguf-bpe");
  EXPECT_EQ(h->getValue<int>("vocab_size"), 4099);
  EXPECT_EQ(h->getValue<int>("context_length"), 4096);
  EXPECT_EQ(h->getValue<int>("vram_bytes_used"), 0) << "CPU backend holds no device memory";
  EXPECT_EQ(h->getValue<int>("vram_bytes"), 0);
  // The tokenizer's metadata (M0-W-1361), from the fixture's GGUF.
  EXPECT_EQ(h->getValue<int>("bos_id"), 4096);  // tokenizer.ggml.bos_token_id
  EXPECT_EQ(h->getValue<int>("eos_id"), 4098);  // tokenizer.ggml.eos_token_id
  EXPECT_EQ(h->getValue<int>("model_max_context"), 512) << "qwen2-tiny is trained for 512";
  EXPECT_TRUE(h->has("uptime_seconds"));
  EXPECT_EQ(HttpGet(w->port(), "/health/live").status, 200);
  EXPECT_EQ(HttpGet(w->port(), "/health/ready").status, 200);
  SseStream(w->port(), "/execute", Job("m1", 3)).ReadAll();
  const std::string m = HttpGet(w->port(), "/metrics").body;
  for (const char* line :
       {"worker_requests_total{outcome=\"completed\"} 1", "worker_tokens_generated_total 3",
        "worker_inference_duration_ms_count 1", "worker_time_to_first_token_seconds_count 1",
        "worker_uptime_seconds"}) {
    EXPECT_NE(m.find(line), std::string::npos) << line << "\n" << m;
  }
}

std::vector<std::string> Tokens(int port, const std::string& body) {
  SseStream s(port, "/execute", body);
  std::vector<std::string> out;
  for (const auto& e : s.ReadAll()) {
    if (e.event == "token") out.push_back(e.data);
    if (e.event == "error") ADD_FAILURE() << e.data;
  }
  return out;
}

TEST(Server, SameSeedSameTokensAndSeedIsReported) {
  auto w = StartWorker();
  const auto a = Tokens(w->port(), Job("r1", 16, R"(,"temperature":0.7,"seed":1234)"));
  const auto b = Tokens(w->port(), Job("r2", 16, R"(,"temperature":0.7,"seed":1234)"));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), 16u);
  SseStream s(w->port(), "/execute", Job("r3", 1, R"(,"temperature":0.7)"));
  Json started = Parse(s.Next()->data);
  EXPECT_TRUE(started->has("seed")) << "a generated seed is reported so the run can be repeated";
}

TEST(Server, MultibyteTextStreamsAsValidUtf8) {
  auto w = StartWorker();
  SseStream s(
      w->port(), "/execute",
      R"({"job_id":"u1","prompt":"你好世界 Hello 👋 World 🌍 café","max_tokens":40,"temperature":1.0,"seed":3})");
  std::string all;
  for (const auto& e : s.ReadAll()) {
    if (e.event != "token") continue;
    const std::string t = Parse(e.data)->getValue<std::string>("t");
    EXPECT_TRUE(IsValidUtf8(t)) << "every event carries whole code points";
    all += t;
  }
  EXPECT_TRUE(IsValidUtf8(all));
}

TEST(Server, StartupFailuresExitNonZeroWithTheReason) {
  auto [code1, out1] =
      WorkerProcess::RunToExit({"--model", "/no/such.gguf", "--device", "cpu"}, 30s);
  EXPECT_EQ(code1, 1);
  EXPECT_NE(out1.find("MODEL_LOAD_FAILED"), std::string::npos) << out1;
  EXPECT_NE(out1.find("/no/such.gguf"), std::string::npos) << out1;
  auto [code2, out2] = WorkerProcess::RunToExit({"--model", "/m.gguf", "--port", "99999"}, 30s);
  EXPECT_EQ(code2, 2);
  EXPECT_NE(out2.find("server.port"), std::string::npos) << out2;
  auto [code3, out3] = WorkerProcess::RunToExit({"--model", FixtureModel("qwen2-tiny.F16.gguf"),
                                                 "--device", "cpu", "--plugin-dir", "/nonexistent"},
                                                30s);
  EXPECT_EQ(code3, 1) << "no plugin serves qwen2 here";
  EXPECT_NE(out3.find("architecture 'qwen2' is not served by any plugin"), std::string::npos)
      << out3;
  // cuda on a machine (or build) that cannot provide it: an error, never a CPU fallback.
  auto [code4, out4] =
      WorkerProcess::RunToExit({"--model", FixtureModel("qwen2-tiny.F16.gguf"), "--device", "cuda",
                                "--plugin-dir", ORCD_PLUGIN_DIR},
                               60s);
  EXPECT_EQ(code4, 1) << out4;
  EXPECT_EQ(out4.find("\"event\":\"ready\""), std::string::npos) << out4;
  EXPECT_NE(out4.find("cuda"), std::string::npos) << out4;
  // A malformed GGUF.
  const std::string bad = "/tmp/orcd-it-bad-" + std::to_string(::getpid()) + ".gguf";
  std::ofstream(bad) << "GGUF but not really";
  auto [code5, out5] = WorkerProcess::RunToExit({"--model", bad, "--device", "cpu"}, 30s);
  std::remove(bad.c_str());
  EXPECT_EQ(code5, 1);
  EXPECT_NE(out5.find("MODEL_LOAD_FAILED"), std::string::npos) << out5;
}

}  // namespace
}  // namespace orcd::testing
