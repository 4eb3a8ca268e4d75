// What the generation service is configured with, in its own terms: the
// server builds it from worker.yaml (GenerationOptionsFrom in
// host/server/worker_config.h), tests and tools directly.
#ifndef ORCD_HOST_GENERATION_GENERATION_OPTIONS_H_
#define ORCD_HOST_GENERATION_GENERATION_OPTIONS_H_

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "host/engine/kv_cache.h"

namespace orcd::engine::cuda {
class DeviceRuntime;
}

namespace orcd {

struct GenerationOptions {
  std::filesystem::path model_path;
  std::filesystem::path tokenizer_json;      // optional HF tokenizer.json
  std::filesystem::path chat_template_file;  // optional; replaces the GGUF's template
  std::string device = "cuda";               // "cuda" | "cpu"
  int gpu_index = 0;
  int threads = 0;                        // CPU backend; 0 = one per core
  bool q8_decode_activations = true;      // one-token matmuls on 8-bit activations
  uint64_t weight_chunk_bytes = 1 << 20;  // CUDA upload chunk
  bool cuda_graphs = true;                // CUDA: replay the decode step as a graph
  int64_t cuda_gemm_column_tile = 0;      // CUDA: GEMM column tile; 0 = off (engine.h)
  int64_t vram_headroom_bytes = -1;       // CUDA: kept free at load; -1 = engine default
  int residency_check_seconds = 60;       // CUDA: 0 = only once, after the load
  // CUDA: the device to run on instead of GPU gpu_index (tests: the emulated
  // device, host/engine/cuda/device_runtime.h).
  std::shared_ptr<engine::cuda::DeviceRuntime> device_runtime;
  int64_t context_length = 0;                     // 0 = the model's trained context
  int64_t max_input_tokens = 0;                   // 0 = context_length - 1
  int64_t kv_cache_bytes = 0;                     // the KV pool; 0 = slots x context_length
  engine::KvType kv_type = engine::KvType::kF16;  // q8_0: CPU only
  // Sequences generated at once (CPU: batched in shared steps; the CUDA
  // backend runs one at a time, the others wait in order).
  int slots = 4;
  int64_t max_batched_tokens = 512;  // tokens per step (decode tokens + prompt chunks)
  // CPU steps: another job's prompt chunk joins only below this many prompt tokens.
  int64_t prompt_batch_tokens = 32;
  // Steps that carry generated tokens: prompt chunks sized to this time
  // (SchedulerOptions::step_time_target); 0 = off.
  std::chrono::microseconds step_time_target{std::chrono::milliseconds(500)};
  // CPU: prompt blocks stay cached for later requests that start the same way.
  bool prefix_cache = true;
  // With it: a finished answer is cached for the conversation's next turn.
  bool cache_answers = true;
};

}  // namespace orcd

#endif  // ORCD_HOST_GENERATION_GENERATION_OPTIONS_H_
