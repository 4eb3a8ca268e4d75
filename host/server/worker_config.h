// worker.yaml: everything an operator sets, with defaults and validation.
// Unknown keys and bad values are start-up errors that name the key.
#ifndef ORCD_HOST_SERVER_WORKER_CONFIG_H_
#define ORCD_HOST_SERVER_WORKER_CONFIG_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "host/generation/generation_options.h"

namespace orcd {

struct WorkerConfig {
  std::string worker_id = "orcd-worker";
  // model
  std::filesystem::path model_path;
  // model.path as given (e.g. file:/models/x.gguf): the reference the ready
  // callback, /health and the logs report back to the pool manager.
  std::string model_ref;
  std::string ModelRef() const { return model_ref.empty() ? model_path.string() : model_ref; }
  std::filesystem::path tokenizer_json;  // optional hf-json tokenizer
  // chat: a Jinja chat template replacing the model's tokenizer.chat_template
  std::filesystem::path chat_template_file;
  // device
  std::string device = "cuda";  // "cuda" | "cpu"; never a silent fallback
  int gpu_device = 0;
  int threads = 0;  // CPU worker threads; 0 = all cores
  // CPU decode: "q8" rounds activations to 8 bits before quantized weights
  // (llama.cpp's arithmetic, faster), "f32" keeps them exact.
  std::string cpu_decode_activations = "q8";
  // CUDA: weight upload chunk through the pinned staging pair, and how often
  // /health re-checks that the weights are still device memory (0 = never).
  int64_t weight_chunk_bytes = 1 << 20;
  int residency_check_seconds = 60;
  // CUDA: replay the one-token decode step as a CUDA graph ("on"/"off").
  std::string cuda_graphs = "on";
  // CUDA: cuBLAS GEMMs over column tiles of this many tokens (0 = off), so
  // that a prompt row's bits never depend on its step's other prompt rows.
  int64_t cuda_gemm_column_tile = 0;
  // CUDA: MiB left free at load for cuBLAS, lazily loaded kernels and graphs.
  int64_t vram_headroom_mib = 512;
  // server
  std::string bind_address = "127.0.0.1";
  int port = 8080;           // 0 = any free port (logged at ready)
  std::string callback_url;  // optional: the pool manager's base URL (ready callback)
  // The uri this worker registers and logs; empty = http://{bind}:{port}. Set
  // it where the bind address is not what clients dial (0.0.0.0 in a pod).
  std::string advertise_url;
  int callback_attempts = 6;  // then the worker reports failed and exits 1
  // HTTP hardening: open connections (the oldest not in a handler is closed
  // to admit a new one), and deadlines for a request head, a body, an idle
  // kept-alive connection and a client that stops reading.
  int max_connections = 64;
  // Many users: sequences generated at once (CPU backend: batched into
  // shared steps; CUDA: one at a time), requests accepted beyond them that
  // wait in order (0 = refuse at once: 503 WORKER_BUSY), and the tokens one
  // step evaluates (decode tokens + prompt chunks). slots 1, queue_depth 0
  // is the M0 single-job contract.
  int slots = 4;
  int queue_depth = 16;
  int64_t max_batched_tokens = 512;
  // A step adds another job's prompt chunk only while it holds fewer prompt
  // tokens than this (CPU): prompts are evaluated one after another.
  int64_t prompt_batch_tokens = 32;
  // While jobs generate, a step's prompt chunk sized to last about this long
  // (measured); 0 = up to max_batched_tokens.
  int64_t step_time_target_ms = 500;
  // Prompt blocks kept for later requests that begin the same way (CPU).
  std::string prefix_cache = "on";
  // With it: finished answers cached for a conversation's next turn.
  std::string prefix_cache_answers = "on";
  double header_timeout_s = 5;
  double body_timeout_s = 10;
  double idle_timeout_s = 5;
  double send_timeout_s = 30;
  // Optional bearer token for every route but the health probes; from the
  // key itself or read from a file (preferred: keeps it out of worker.yaml).
  // Never logged.
  std::string auth_token;
  std::filesystem::path auth_token_file;
  // plugins
  std::vector<std::filesystem::path> plugin_dirs;  // empty = defaults
  // limits
  int64_t context_length = 0;    // 0 = the model's trained context
  int64_t max_input_tokens = 0;  // 0 = context_length - 1
  int64_t max_output_tokens = 2048;
  double inference_timeout_s = 300;
  int64_t kv_cache_bytes = 0;   // 0 = sized for context_length
  std::string kv_type = "f16";  // f16 | f32 | q8_0 (CPU)
  double shutdown_timeout_s = 30;
  // logging
  std::string log_level = "info";
  std::string log_format = "json";
};

// Throws orcd::Error(kInvalidArgument) naming the key and the problem.
WorkerConfig LoadWorkerConfig(const std::filesystem::path& path);
WorkerConfig ParseWorkerConfig(const std::string& yaml_text, const std::string& source_name);
// Checks cross-field rules (e.g. a model path is set). Throws like above.
void ValidateWorkerConfig(const WorkerConfig& config);
// Reads server.auth_token_file (trailing newline dropped) into auth_token.
// Throws like above, naming the file but never its content.
void ReadAuthTokenFile(WorkerConfig* config);

// A worker id is a UUID (8-4-4-4-12 hex digits, as the spec's CLI asks) or a
// name of 1 to 64 characters from [A-Za-z0-9._-] starting with a letter or
// digit (the spec's own examples, e.g. "worker-abc"): safe in logs, JSON and
// URLs either way.
bool IsValidWorkerId(const std::string& id);

// Sets one dotted key ("server.port") from its text form: the single place
// both worker.yaml and the command line go through. Throws like above.
void SetConfigValue(WorkerConfig* config, const std::string& key, const std::string& value);

// Command line: --config F plus overrides: the spec's --worker-id, --model,
// --gpu-device, --port, --callback-url, --max-tokens-in, --max-tokens-out,
// --inference-timeout-sec, --kv-cache-size-mb, and --device, --bind,
// --threads, --log-level, --plugin-dir (repeatable), --tokenizer-json,
// --auth-token-file.
struct CommandLine {
  std::filesystem::path config_path;
  std::vector<std::pair<std::string, std::string>> overrides;  // dotted key, value
  bool help = false;
  bool version = false;
  bool list_plugins = false;  // print the plugins found and refused, then exit
};
// Throws orcd::Error(kInvalidArgument) on an unknown flag or a missing value.
CommandLine ParseCommandLine(int argc, const char* const* argv);
// File (when given) then overrides, without validation: enough for
// --list-plugins, which needs no model.
WorkerConfig ApplyCommandLine(const CommandLine& command_line);
// File (when given) then overrides, then validation; reads
// server.auth_token_file into auth_token.
WorkerConfig ResolveWorkerConfig(const CommandLine& command_line);
std::string CommandLineHelp();

// The generation service's options from the worker's configuration.
GenerationOptions GenerationOptionsFrom(const WorkerConfig& config);

// The uri the worker registers with the pool manager and logs: advertise_url,
// else http://{bind}:{port}.
std::string AdvertisedUri(const WorkerConfig& config, int port);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_WORKER_CONFIG_H_
