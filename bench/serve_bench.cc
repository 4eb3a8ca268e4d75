// orcd-bench serve: many users against a running server, measured the way a
// user feels it, through the OpenAI streaming API (/v1/completions with
// stream: true), so that orcd-host and llama-server are measured alike.
//
// C clients each send requests back to back until N measured requests are
// done (after W warm-up requests per client, not measured). Request i's
// prompt and output length come from a fixed seed: prompts of
// --prompt-words MIN,MAX words drawn from a fixed list (about 1.3 tokens per
// word with a BPE vocabulary), --output-tokens MIN,MAX tokens asked for,
// greedy. With --shared-prefix-words P every prompt starts with the same P
// words (an application's system prompt: what prefix caching serves), then
// its own. Reported: aggregate output tok/s (streamed text chunks: one per
// token on both servers), requests/s, time to first token and inter-token
// latency percentiles, errors (a refusal, a stream cut short of [DONE] or
// carrying an error), answers that ended well without any text (not timed;
// random-weight files give some), and the server's peak RSS (--pid). With
// --response-format F every request carries F's JSON as its response_format
// (structured output's cost under many users). With --turns T each measured
// request is a conversation of T turns: every later turn's prompt is the
// previous prompt, the answer the server streamed and a new user message
// (its own words), as a chat client resends the history; every turn is a
// sample (what prefix caching serves: the history's beginning is computed).
// --requests counts conversations then.
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/URI.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <istream>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_flags.h"
#include "bench_util.h"
#include "subcommands.h"

namespace orcd::bench {
namespace {

struct Options {
  std::string url = "http://127.0.0.1:8080";
  std::string model = "model";
  int clients = 8;
  int requests = 64;
  int warmup = 1;
  int64_t seed = 42;
  std::vector<std::string> prompt_words;   // empty: 16,256
  std::vector<std::string> output_tokens;  // empty: 32,128
  int64_t shared_prefix_words = 0;
  int64_t turns = 1;
  int64_t think_ms = 0;
  int pid = 0;
  bool json = false;
  std::string response_format_file;
  std::string response_format;  // its JSON text
};

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: orcd-bench serve [--url URL] [--clients C] [--requests N] [--warmup W]\n"
               "                        [--seed S] [--prompt-words MIN,MAX]\n"
               "                        [--output-tokens MIN,MAX] [--shared-prefix-words P]\n"
               "                        [--model NAME] [--pid PID] [--response-format F]\n"
               "                        [--turns T] [--think-ms MS] [--json]\n"
               "  --url URL        the server (default http://127.0.0.1:8080)\n"
               "  --clients C      concurrent clients (default 8)\n"
               "  --requests N     measured requests in all (default 64)\n"
               "  --warmup W       unmeasured requests per client first (default 1)\n"
               "  --prompt-words   prompt length range in words (default 16,256)\n"
               "  --output-tokens  max_tokens range (default 32,128)\n"
               "  --shared-prefix-words P  every prompt starts with the same P words\n"
               "  --turns T        each request a conversation of T turns (default 1): a\n"
               "                   turn's prompt is the last prompt, its answer and new words\n"
               "  --think-ms MS    with --turns: a user's pause before each later turn\n"
               "  --pid PID        the server's process: its peak RSS is reported\n"
               "  --response-format F  a JSON file: every request's response_format\n");
}

struct Request {
  std::string prompt;
  int max_tokens = 0;
};

// Request i of a run: the same for every server and every run with the seed.
Request MakeRequest(const Options& o, int64_t i, int pmin, int pmax, int omin, int omax) {
  static const char* const kWords[] = {
      "the",   "river", "stone", "light",  "window", "quiet",  "market", "seven",   "garden",
      "paper", "north", "slow",  "bright", "engine", "letter", "summer", "village", "cold",
      "story", "music", "table", "under",  "across", "silver", "doctor", "island",  "green"};
  const auto pick = [](std::mt19937_64& rng) {
    return kWords[std::uniform_int_distribution<size_t>(0, std::size(kWords) - 1)(rng)];
  };
  Request r;
  std::mt19937_64 shared(static_cast<uint64_t>(o.seed) * 7919u);  // the same for every request
  for (int64_t w = 0; w < o.shared_prefix_words; ++w) {
    r.prompt += pick(shared);
    r.prompt += w % 12 == 11 ? ". " : " ";
  }
  std::mt19937_64 rng(static_cast<uint64_t>(o.seed) * 1000003u + static_cast<uint64_t>(i));
  const int words = std::uniform_int_distribution<int>(pmin, pmax)(rng);
  for (int w = 0; w < words; ++w) {
    if (w > 0) r.prompt += ' ';
    r.prompt += pick(rng);
  }
  r.max_tokens = std::uniform_int_distribution<int>(omin, omax)(rng);
  return r;
}

// Turn t > 0 of conversation i: the user's next message (its own words).
std::string NextUserTurn(const Options& o, int64_t i, int64_t t, int pmin, int pmax) {
  Options turn = o;
  turn.shared_prefix_words = 0;
  turn.seed = o.seed + 7777 * t;
  return "\nUser: " + MakeRequest(turn, i, pmin, pmax, 1, 1).prompt + "\nAssistant:";
}

struct Sample {
  // The stream ended with [DONE] and no error chunk. An answer may still
  // carry no text (a random-weight model's greedy pick can be the end token
  // or tokens that print nothing): served, but without a first token to time.
  bool ok = false;
  double ttft_ms = 0;
  std::vector<double> gaps_ms;  // between streamed tokens
  int64_t tokens = 0;
  std::string text;  // the answer, streamed
  int64_t turn = 0;  // of its conversation
};

// choices[0].text of a streamed completion chunk ("" when it has none).
std::string ChunkText(const std::string& json) {
  try {
    const auto chunk = Poco::JSON::Parser().parse(json).extract<Poco::JSON::Object::Ptr>();
    const auto choices = chunk->getArray("choices");
    if (!choices || choices->size() == 0) return "";
    return choices->getObject(0)->optValue<std::string>("text", "");
  } catch (const std::exception&) {
    return "";
  }
}

// One streamed completion; counts the chunks that carry text.
Sample Run(const Poco::URI& uri, const Options& o, const Request& r) {
  Sample s;
  try {
    Poco::Net::HTTPClientSession session(uri.getHost(), uri.getPort());
    session.setTimeout(Poco::Timespan(600, 0));
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, "/v1/completions",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    const std::string body =
        "{\"model\":" + json_string(o.model) + ",\"prompt\":" + json_string(r.prompt) +
        ",\"max_tokens\":" + std::to_string(r.max_tokens) + ",\"temperature\":0,\"stream\":true" +
        (o.response_format.empty() ? "" : ",\"response_format\":" + o.response_format) + "}";
    request.setContentType("application/json");
    request.setContentLength(static_cast<std::streamsize>(body.size()));
    const double t0 = now_seconds();
    session.sendRequest(request) << body;
    Poco::Net::HTTPResponse response;
    std::istream& in = session.receiveResponse(response);
    if (response.getStatus() != Poco::Net::HTTPResponse::HTTP_OK) return s;
    double last = t0;
    std::string line;
    bool done = false, error_chunk = false;
    while (std::getline(in, line)) {
      if (line.rfind("data: ", 0) != 0) continue;
      if (line.find("[DONE]") != std::string::npos) {
        done = true;
        break;
      }
      if (line.rfind("data: {\"error\"", 0) == 0) error_chunk = true;
      // A chunk with text: "text":"..." that is not empty.
      const size_t at = line.find("\"text\":\"");
      if (at == std::string::npos || line.compare(at + 8, 1, "\"") == 0) continue;
      if (o.turns > 1) s.text += ChunkText(line.substr(6));
      const double now = now_seconds();
      if (s.tokens == 0) {
        s.ttft_ms = (now - t0) * 1000.0;
      } else {
        s.gaps_ms.push_back((now - last) * 1000.0);
      }
      last = now;
      ++s.tokens;
    }
    s.ok = done && !error_chunk;
  } catch (const std::exception&) {
    s.ok = false;
  }
  return s;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

int64_t ProcStatusKb(int pid, const std::string& key) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1));
  }
  return -1;
}

bool ParseRange(const std::vector<std::string>& v, int* lo, int* hi) {
  if (v.size() != 2) return false;
  try {
    *lo = std::stoi(v[0]);
    *hi = std::stoi(v[1]);
  } catch (const std::exception&) {
    return false;
  }
  return *lo >= 1 && *hi >= *lo;
}

}  // namespace

int run_serve(const Args& args) {
  Options o;
  const int parsed = ParseOrExit(
      "serve", args,
      {StringFlag("--url", &o.url), StringFlag("--model", &o.model),
       IntFlag("--clients", &o.clients), IntFlag("--requests", &o.requests),
       IntFlag("--warmup", &o.warmup), IntFlag("--seed", &o.seed),
       CsvFlag("--prompt-words", &o.prompt_words), CsvFlag("--output-tokens", &o.output_tokens),
       IntFlag("--shared-prefix-words", &o.shared_prefix_words), IntFlag("--pid", &o.pid),
       IntFlag("--turns", &o.turns), IntFlag("--think-ms", &o.think_ms),
       StringFlag("--response-format", &o.response_format_file), Switch("--json", &o.json)},
      &usage);
  if (parsed >= 0) return parsed;
  if (!o.response_format_file.empty()) {
    std::ifstream f(o.response_format_file);
    std::stringstream text;
    text << f.rdbuf();
    o.response_format = text.str();
    if (!f || o.response_format.empty()) {
      std::fprintf(stderr, "orcd-bench serve: cannot read %s\n", o.response_format_file.c_str());
      return 2;
    }
  }
  if (o.prompt_words.empty()) o.prompt_words = {"16", "256"};
  if (o.output_tokens.empty()) o.output_tokens = {"32", "128"};
  int pmin = 0, pmax = 0, omin = 0, omax = 0;
  if (!ParseRange(o.prompt_words, &pmin, &pmax) || !ParseRange(o.output_tokens, &omin, &omax) ||
      o.clients < 1 || o.requests < 1 || o.warmup < 0 || o.shared_prefix_words < 0 || o.turns < 1 ||
      o.turns > 64) {
    std::fprintf(stderr, "orcd-bench serve: bad --clients, --requests, --turns or a range\n");
    usage(stderr);
    return 2;
  }
  const Poco::URI uri(o.url);
  const int64_t rss_before = o.pid > 0 ? ProcStatusKb(o.pid, "VmRSS") : -1;
  // Conversation i, turn by turn (one turn: the request alone).
  const auto converse = [&](int64_t i, std::vector<Sample>* out) {
    Request r = MakeRequest(o, i, pmin, pmax, omin, omax);
    if (o.turns > 1) r.prompt = "System: " + r.prompt + "\nAssistant:";
    for (int64_t t = 0; t < o.turns; ++t) {
      if (t > 0 && o.think_ms > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(o.think_ms));
      Sample s = Run(uri, o, r);
      s.turn = t;
      const bool ok = s.ok;
      r.prompt += s.text + NextUserTurn(o, i, t + 1, pmin, pmax);
      if (out != nullptr) out->push_back(std::move(s));
      if (!ok) break;
    }
  };

  // Warm-up: requests numbered from -1 down, never measured.
  {
    std::vector<std::thread> threads;
    for (int c = 0; c < o.clients; ++c) {
      threads.emplace_back([&, c] {
        for (int w = 0; w < o.warmup; ++w) converse(-1 - (c * o.warmup + w), nullptr);
      });
    }
    for (auto& t : threads) t.join();
  }

  std::atomic<int> next{0};
  std::mutex mu;
  std::vector<Sample> samples;
  const double t0 = now_seconds();
  {
    std::vector<std::thread> threads;
    for (int c = 0; c < o.clients; ++c) {
      threads.emplace_back([&] {
        for (int i = next++; i < o.requests; i = next++) {
          std::vector<Sample> turns;
          converse(i, &turns);
          std::lock_guard lock(mu);
          for (Sample& s : turns) samples.push_back(std::move(s));
        }
      });
    }
    for (auto& t : threads) t.join();
  }
  const double wall = now_seconds() - t0;

  int errors = 0, empty_answers = 0;
  int64_t tokens = 0;
  std::vector<double> ttft, gaps, later_ttft;  // later: the turns after a conversation's first
  for (const Sample& s : samples) {
    if (!s.ok) {
      ++errors;
      continue;
    }
    if (s.tokens == 0) {
      ++empty_answers;
      continue;
    }
    tokens += s.tokens;
    ttft.push_back(s.ttft_ms);
    if (s.turn > 0) later_ttft.push_back(s.ttft_ms);
    gaps.insert(gaps.end(), s.gaps_ms.begin(), s.gaps_ms.end());
  }
  const int64_t rss_after = o.pid > 0 ? ProcStatusKb(o.pid, "VmRSS") : -1;
  const int64_t rss_peak = o.pid > 0 ? ProcStatusKb(o.pid, "VmHWM") : -1;
  const double tok_s = static_cast<double>(tokens) / wall;
  const double req_s = static_cast<double>(samples.size() - static_cast<size_t>(errors)) / wall;
  if (o.json) {
    std::printf(
        "{\"bench\":\"serve\",\"url\":%s,\"clients\":%d,\"requests\":%d,\"warmup_per_client\":%d,"
        "\"seed\":%lld,\"prompt_words\":[%d,%d],\"shared_prefix_words\":%lld,\"turns\":%lld,"
        "\"think_ms\":%lld,\"later_turns_ttft_ms\":{\"p50\":%s,\"p99\":%s},"
        "\"output_tokens\":[%d,%d],\"cpu\":%s,"
        "\"wall_s\":%s,\"output_tokens_total\":%lld,\"output_tok_s\":%s,\"requests_per_s\":%s,"
        "\"ttft_ms\":{\"p50\":%s,\"p99\":%s},\"itl_ms\":{\"p50\":%s,\"p99\":%s},\"errors\":%d,"
        "\"empty_answers\":%d,"
        "\"rss_kb\":{\"before\":%lld,\"after\":%lld,\"peak\":%lld}}\n",
        json_string(o.url).c_str(), o.clients, o.requests, o.warmup, static_cast<long long>(o.seed),
        pmin, pmax, static_cast<long long>(o.shared_prefix_words), static_cast<long long>(o.turns),
        static_cast<long long>(o.think_ms), json_number(Percentile(later_ttft, 50)).c_str(),
        json_number(Percentile(later_ttft, 99)).c_str(), omin, omax,
        json_string(cpu_model_name()).c_str(), json_number(wall).c_str(),
        static_cast<long long>(tokens), json_number(tok_s).c_str(), json_number(req_s).c_str(),
        json_number(Percentile(ttft, 50)).c_str(), json_number(Percentile(ttft, 99)).c_str(),
        json_number(Percentile(gaps, 50)).c_str(), json_number(Percentile(gaps, 99)).c_str(),
        errors, empty_answers, static_cast<long long>(rss_before),
        static_cast<long long>(rss_after), static_cast<long long>(rss_peak));
  } else {
    std::printf(
        "%s, %d clients, %d requests: %.1f output tok/s, %.2f req/s, TTFT p50 %.0f p99 %.0f ms, "
        "inter-token p50 %.1f p99 %.1f ms, %d errors, %d answers without text, peak RSS %lld kB\n",
        o.url.c_str(), o.clients, o.requests, tok_s, req_s, Percentile(ttft, 50),
        Percentile(ttft, 99), Percentile(gaps, 50), Percentile(gaps, 99), errors, empty_answers,
        static_cast<long long>(rss_peak));
  }
  return errors == 0 ? 0 : 1;
}

}  // namespace orcd::bench
