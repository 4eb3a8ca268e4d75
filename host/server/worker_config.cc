#include "host/server/worker_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/engine/kv_cache.h"

namespace orcd {
namespace {

[[noreturn]] void Bad(const std::string& key, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument, "config key '" + key + "': " + why);
}

int64_t ParseInt(const std::string& key, const std::string& v, int64_t lo, int64_t hi) {
  int64_t x = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || end != v.data() + v.size()) Bad(key, "'" + v + "' is not an integer");
  if (x < lo || x > hi) {
    Bad(key, v + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  return x;
}

double ParseSeconds(const std::string& key, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x)) {
    Bad(key, "'" + v + "' is not a number");
  }
  if (x <= 0 || x > 86400) Bad(key, v + " is outside (0, 86400] seconds");
  return x;
}

std::string OneOf(const std::string& key, const std::string& v,
                  std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (v == a) return v;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  Bad(key, "'" + v + "' is not one of " + list);
}

constexpr int64_t kMaxTokens = int64_t{1} << 24;

// Flattens a YAML mapping into dotted keys; sequences are applied item by item.
void Flatten(const YAML::Node& node, const std::string& prefix, WorkerConfig* config) {
  if (!node.IsMap()) Bad(prefix.empty() ? "(root)" : prefix, "expected a mapping");
  for (const auto& kv : node) {
    const std::string key = (prefix.empty() ? "" : prefix + ".") + kv.first.as<std::string>();
    const YAML::Node& value = kv.second;
    if (value.IsMap()) {
      Flatten(value, key, config);
    } else if (value.IsSequence()) {
      if (key != "plugins.dirs") Bad(key, "a list is not allowed here");
      config->plugin_dirs.clear();
      for (const auto& item : value) {
        if (!item.IsScalar()) Bad(key, "list items must be paths");
        SetConfigValue(config, key, item.as<std::string>());
      }
    } else if (value.IsNull()) {
      continue;  // "key:" with no value keeps the default
    } else {
      SetConfigValue(config, key, value.as<std::string>());
    }
  }
}

}  // namespace

void SetConfigValue(WorkerConfig* c, const std::string& key, const std::string& v) {
  if (key == "worker_id") {
    if (!IsValidWorkerId(v)) {
      Bad(key, "'" + v.substr(0, 80) +
                   "' is neither a UUID nor a name of 1 to 64 characters from [A-Za-z0-9._-]");
    }
    c->worker_id = v;
  } else if (key == "model.path") {
    // The spec's location form file:/path (or file:///path) names a local file.
    std::string path = v;
    if (path.rfind("file://", 0) == 0) {
      path.erase(0, 7);
    } else if (path.rfind("file:", 0) == 0) {
      path.erase(0, 5);
    }
    c->model_path = path;
    c->model_ref = v;  // as given: what the pool manager asked for
  } else if (key == "model.tokenizer_json") {
    c->tokenizer_json = v;
  } else if (key == "chat.template_file") {
    c->chat_template_file = v;
  } else if (key == "device.kind") {
    c->device = OneOf(key, v, {"cuda", "cpu"});
  } else if (key == "device.gpu") {
    c->gpu_device = static_cast<int>(ParseInt(key, v, 0, 255));
  } else if (key == "device.threads") {
    c->threads = static_cast<int>(ParseInt(key, v, 0, 1024));
  } else if (key == "device.cpu_decode_activations") {
    c->cpu_decode_activations = OneOf(key, v, {"q8", "f32"});
  } else if (key == "device.weight_chunk_bytes") {
    c->weight_chunk_bytes = ParseInt(key, v, 4096, int64_t{1} << 30);
  } else if (key == "device.cuda_graphs") {
    c->cuda_graphs = OneOf(key, v, {"on", "off"});
  } else if (key == "device.cuda_gemm_column_tile") {
    c->cuda_gemm_column_tile = ParseInt(key, v, 0, 4096);
  } else if (key == "device.vram_headroom_mib") {
    c->vram_headroom_mib = ParseInt(key, v, 0, int64_t{1} << 20);
  } else if (key == "device.residency_check_seconds") {
    c->residency_check_seconds = static_cast<int>(ParseInt(key, v, 0, 86400));
  } else if (key == "server.bind") {
    if (v.empty()) Bad(key, "must not be empty");
    c->bind_address = v;
  } else if (key == "server.port") {
    c->port = static_cast<int>(ParseInt(key, v, 0, 65535));
  } else if (key == "server.callback_url") {
    if (!v.empty() && v.rfind("http://", 0) != 0 && v.rfind("https://", 0) != 0) {
      Bad(key, "'" + v + "' is not an http(s) URL");
    }
    c->callback_url = v;
  } else if (key == "server.advertise_url") {
    if (!v.empty() && v.rfind("http://", 0) != 0 && v.rfind("https://", 0) != 0) {
      Bad(key, "'" + v + "' is not an http(s) URL");
    }
    c->advertise_url = v;
  } else if (key == "server.callback_attempts") {
    c->callback_attempts = static_cast<int>(ParseInt(key, v, 1, 100));
  } else if (key == "server.slots") {
    c->slots = static_cast<int>(ParseInt(key, v, 1, 256));
  } else if (key == "server.queue_depth") {
    c->queue_depth = static_cast<int>(ParseInt(key, v, 0, 4096));
  } else if (key == "server.max_batched_tokens") {
    c->max_batched_tokens = ParseInt(key, v, 1, 8192);
  } else if (key == "server.prompt_batch_tokens") {
    c->prompt_batch_tokens = ParseInt(key, v, 1, 8192);
  } else if (key == "server.step_time_target_ms") {
    c->step_time_target_ms = ParseInt(key, v, 0, 60000);
  } else if (key == "server.prefix_cache") {
    c->prefix_cache = OneOf(key, v, {"on", "off"});
  } else if (key == "server.prefix_cache_answers") {
    c->prefix_cache_answers = OneOf(key, v, {"on", "off"});
  } else if (key == "server.max_connections") {
    c->max_connections = static_cast<int>(ParseInt(key, v, 4, 4096));
  } else if (key == "server.header_timeout_s") {
    c->header_timeout_s = ParseSeconds(key, v);
  } else if (key == "server.body_timeout_s") {
    c->body_timeout_s = ParseSeconds(key, v);
  } else if (key == "server.idle_timeout_s") {
    c->idle_timeout_s = ParseSeconds(key, v);
  } else if (key == "server.send_timeout_s") {
    c->send_timeout_s = ParseSeconds(key, v);
  } else if (key == "server.auth_token") {
    c->auth_token = v;  // never echoed in an error
  } else if (key == "server.auth_token_file") {
    c->auth_token_file = v;
  } else if (key == "plugins.dirs") {
    c->plugin_dirs.emplace_back(v);
  } else if (key == "limits.context_length") {
    c->context_length = ParseInt(key, v, 0, kMaxTokens);
  } else if (key == "limits.max_input_tokens") {
    c->max_input_tokens = ParseInt(key, v, 0, kMaxTokens);
  } else if (key == "limits.max_output_tokens") {
    c->max_output_tokens = ParseInt(key, v, 1, kMaxTokens);
  } else if (key == "limits.inference_timeout_s") {
    c->inference_timeout_s = ParseSeconds(key, v);
  } else if (key == "limits.kv_cache_bytes") {
    c->kv_cache_bytes = ParseInt(key, v, 0, INT64_MAX);
  } else if (key == "limits.kv_cache_size_mb") {  // the spec's unit (MiB); 0 = auto
    c->kv_cache_bytes = ParseInt(key, v, 0, int64_t{1} << 30) << 20;
  } else if (key == "limits.kv_type") {
    c->kv_type = OneOf(key, v, {"f16", "f32", "q8_0"});
  } else if (key == "limits.shutdown_timeout_s") {
    c->shutdown_timeout_s = ParseSeconds(key, v);
  } else if (key == "logging.level") {
    LogLevel unused;
    if (!ParseLogLevel(v, &unused)) Bad(key, "'" + v + "' is not one of debug, info, warn, error");
    c->log_level = v;
  } else if (key == "logging.format") {
    c->log_format = OneOf(key, v, {"json"});
  } else {
    Bad(key, "unknown key");
  }
}

WorkerConfig ParseWorkerConfig(const std::string& yaml_text, const std::string& source_name) {
  WorkerConfig config;
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorCode::kInvalidArgument, source_name + ": invalid YAML: " + e.what());
  }
  if (root.IsNull()) return config;  // an empty file keeps every default
  try {
    Flatten(root, "", &config);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorCode::kInvalidArgument, source_name + ": " + e.what());
  } catch (const Error& e) {
    throw Error(e.code(), source_name + ": " + e.what());
  }
  return config;
}

WorkerConfig LoadWorkerConfig(const std::filesystem::path& path) {
  std::ifstream f(path);
  if (!f) throw Error(ErrorCode::kNotFound, "cannot read config file " + path.string());
  std::stringstream ss;
  ss << f.rdbuf();
  return ParseWorkerConfig(ss.str(), path.string());
}

void ValidateWorkerConfig(const WorkerConfig& c) {
  if (c.model_path.empty()) Bad("model.path", "is required (or pass --model)");
  if (c.context_length > 0 && c.max_input_tokens >= c.context_length) {
    Bad("limits.max_input_tokens", "must be smaller than limits.context_length");
  }
  if (c.slots + c.queue_depth + 8 > c.max_connections) {
    Bad("server.queue_depth",
        "server.slots + server.queue_depth (" + std::to_string(c.slots + c.queue_depth) +
            ") must leave 8 of server.max_connections (" + std::to_string(c.max_connections) +
            ") for health checks and /cancel");
  }
}

void ReadAuthTokenFile(WorkerConfig* c) {
  if (c->auth_token_file.empty()) return;
  const std::string key = "server.auth_token_file";
  if (!c->auth_token.empty()) Bad(key, "set server.auth_token or server.auth_token_file, not both");
  std::ifstream f(c->auth_token_file);
  std::stringstream ss;
  ss << f.rdbuf();
  if (!f) Bad(key, "cannot read " + c->auth_token_file.string());
  std::string token = ss.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) {
    token.pop_back();
  }
  if (token.empty()) Bad(key, c->auth_token_file.string() + " holds no token");
  c->auth_token = std::move(token);
}

bool IsValidWorkerId(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  const auto alnum = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0; };
  if (!alnum(id[0])) return false;
  return std::all_of(id.begin(), id.end(),
                     [&](char ch) { return alnum(ch) || ch == '.' || ch == '_' || ch == '-'; });
}

namespace {

struct Flag {
  const char* flag;
  const char* key;
};
// The seed spec's flags first, then the rest.
constexpr Flag kFlags[] = {
    {"--worker-id", "worker_id"},
    {"--model", "model.path"},
    {"--gpu-device", "device.gpu"},
    {"--port", "server.port"},
    {"--callback-url", "server.callback_url"},
    {"--advertise-url", "server.advertise_url"},
    {"--max-tokens-in", "limits.max_input_tokens"},
    {"--max-tokens-out", "limits.max_output_tokens"},
    {"--inference-timeout-sec", "limits.inference_timeout_s"},
    {"--kv-cache-size-mb", "limits.kv_cache_size_mb"},
    {"--device", "device.kind"},
    {"--bind", "server.bind"},
    {"--threads", "device.threads"},
    {"--log-level", "logging.level"},
    {"--plugin-dir", "plugins.dirs"},
    {"--tokenizer-json", "model.tokenizer_json"},
    {"--auth-token-file", "server.auth_token_file"},
};

}  // namespace

CommandLine ParseCommandLine(int argc, const char* const* argv) {
  CommandLine cl;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto take = [&]() {
      if (has_value) return value;
      if (i + 1 >= argc) throw Error(ErrorCode::kInvalidArgument, arg + " needs a value");
      return std::string(argv[++i]);
    };
    if (arg == "-h" || arg == "--help") {
      cl.help = true;
    } else if (arg == "--version") {
      cl.version = true;
    } else if (arg == "--list-plugins") {
      cl.list_plugins = true;
    } else if (arg == "--config" || arg == "-c") {
      cl.config_path = take();
    } else {
      const Flag* match = nullptr;
      for (const Flag& f : kFlags) {
        if (arg == f.flag) match = &f;
      }
      if (!match) throw Error(ErrorCode::kInvalidArgument, "unknown option " + arg);
      cl.overrides.emplace_back(match->key, take());
    }
  }
  return cl;
}

WorkerConfig ApplyCommandLine(const CommandLine& cl) {
  WorkerConfig config = cl.config_path.empty() ? WorkerConfig{} : LoadWorkerConfig(cl.config_path);
  bool plugin_dirs_overridden = false;
  for (const auto& [key, value] : cl.overrides) {
    // Command-line plugin dirs replace the file's list rather than extend it.
    if (key == "plugins.dirs" && !plugin_dirs_overridden) {
      config.plugin_dirs.clear();
      plugin_dirs_overridden = true;
    }
    try {
      SetConfigValue(&config, key, value);
    } catch (const Error& e) {
      throw Error(e.code(), std::string("command line: ") + e.what());
    }
  }
  return config;
}

WorkerConfig ResolveWorkerConfig(const CommandLine& cl) {
  WorkerConfig config = ApplyCommandLine(cl);
  ValidateWorkerConfig(config);
  ReadAuthTokenFile(&config);
  return config;
}

GenerationOptions GenerationOptionsFrom(const WorkerConfig& config) {
  GenerationOptions o;
  o.model_path = config.model_path;
  o.tokenizer_json = config.tokenizer_json;
  o.chat_template_file = config.chat_template_file;
  o.device = config.device;
  o.gpu_index = config.gpu_device;
  o.threads = config.threads;
  o.q8_decode_activations = config.cpu_decode_activations == "q8";
  o.weight_chunk_bytes = static_cast<uint64_t>(config.weight_chunk_bytes);
  o.cuda_graphs = config.cuda_graphs == "on";
  o.cuda_gemm_column_tile = config.cuda_gemm_column_tile;
  o.vram_headroom_bytes = config.vram_headroom_mib << 20;
  o.residency_check_seconds = config.residency_check_seconds;
  o.context_length = config.context_length;
  o.max_input_tokens = config.max_input_tokens;
  o.kv_cache_bytes = config.kv_cache_bytes;
  o.slots = config.slots;
  o.max_batched_tokens = config.max_batched_tokens;
  o.prompt_batch_tokens = config.prompt_batch_tokens;
  o.step_time_target = std::chrono::milliseconds(config.step_time_target_ms);
  o.prefix_cache = config.prefix_cache == "on";
  o.cache_answers = config.prefix_cache_answers == "on";
  o.kv_type = config.kv_type == "q8_0"  ? engine::KvType::kQ8_0
              : config.kv_type == "f32" ? engine::KvType::kF32
                                        : engine::KvType::kF16;  // OneOf checked the name
  return o;
}

std::string AdvertisedUri(const WorkerConfig& config, int port) {
  if (!config.advertise_url.empty()) return config.advertise_url;
  return "http://" + config.bind_address + ":" + std::to_string(port);
}

std::string CommandLineHelp() {
  return "usage: orcd-host --config worker.yaml [overrides]\n"
         "       orcd-host --worker-id ID --model PATH --gpu-device N --port N "
         "[--callback-url URL] [overrides]\n"
         "  --config FILE        worker.yaml (see /etc/orcd/worker.yaml for every key)\n"
         "  --worker-id ID       worker_id: a UUID, or a name of 1-64 characters from\n"
         "                       [A-Za-z0-9._-] starting with a letter or digit\n"
         "  --model PATH         model.path (a GGUF file; file:/path is accepted)\n"
         "  --gpu-device N       device.gpu (CUDA device index)\n"
         "  --port N             server.port (0 = any free port; logged at start-up)\n"
         "  --callback-url URL   server.callback_url: the pool manager's base URL; orcd\n"
         "                       POSTs {URL}/v2/internal/workers/ready once loaded and\n"
         "                       accepts jobs only after a 2xx (http://, or https://\n"
         "                       when built with Poco NetSSL)\n"
         "  --advertise-url URL  server.advertise_url: the uri registered with the pool\n"
         "                       manager (default http://BIND:PORT; in a pod, the pod IP)\n"
         "  --max-tokens-in N    limits.max_input_tokens (default: context length - 1)\n"
         "  --max-tokens-out N   limits.max_output_tokens (default 2048)\n"
         "  --inference-timeout-sec S  limits.inference_timeout_s (default 300)\n"
         "  --kv-cache-size-mb N limits.kv_cache_size_mb: KV cache cap in MiB; a model\n"
         "                       whose cache at limits.context_length needs more is\n"
         "                       refused at start-up (default 0 = sized automatically)\n"
         "  --device cuda|cpu    device.kind (default cuda; never falls back silently)\n"
         "  --threads N          device.threads (CPU backend; 0 = all cores)\n"
         "  --bind ADDR          server.bind (default 127.0.0.1)\n"
         "  --plugin-dir DIR     plugins.dirs (repeatable; replaces the file's list)\n"
         "  --tokenizer-json F   model.tokenizer_json\n"
         "  --auth-token-file F  server.auth_token_file (bearer token for the API)\n"
         "  --log-level LEVEL    logging.level (debug|info|warn|error)\n"
         "  --list-plugins       print every plugin found in the plugin directories (name,\n"
         "                       ABI, architectures or quant types served) and every\n"
         "                       refused file with the reason, then exit (no model needed)\n"
         "  --version            print the version and exit\n";
}

}  // namespace orcd
