// orcd-bench model: what a user feels from one model on the engine — load
// time, prompt processing (prefill) tok/s, time to first token, batch-1 decode
// tok/s, and the weight bytes one decode step reads (so decode tok/s can be
// set against the machine's memory bandwidth); with --sequences N, the
// aggregate decode tok/s of N sequences sharing each step (Engine::Step: the
// weights read once per step for all of them).
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench_flags.h"
#include "bench_util.h"
#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/engine/engine.h"
#include "host/plugins/host_services.h"
#include "host/plugins/plugin_registry.h"
#include "host/plugins/plugin_search_path.h"
#include "quant_bench_cuda.h"
#include "subcommands.h"

namespace orcd::bench {
namespace {

struct Options {
  std::string model;
  bool json = false;
  int threads = 0;
  int64_t prompt_tokens = 128;
  int64_t gen_tokens = 64;
  int64_t context = 0;
  int repeat = 2;
  std::string activations = "q8";
  std::string device = "cpu";
  std::string cuda_graphs = "on";
  std::string cuda_prefill = "f16";
  int64_t gemm_column_tile = 0;
  std::string fusion = "on";
  std::string kv_type = "f16";
  int sequences = 1;
  std::vector<std::filesystem::path> plugin_dirs;
};

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: orcd-bench model --model M.gguf [--json] [--threads N] [--prompt N]\n"
               "                        [--gen N] [--ctx N] [--repeat R] [--plugin-dir DIR]\n"
               "                        [--activations q8|f32] [--device cpu|cuda]\n"
               "                        [--cuda-graphs on|off] [--cuda-prefill f16|f32]\n"
               "                        [--fusion on|off] [--sequences N] [--kv-type T]\n"
               "                        [--cuda-gemm-columns N]\n"
               "  --prompt N   prompt tokens evaluated in one prefill (default 128)\n"
               "  --gen N      tokens decoded one at a time, greedy (default 64)\n"
               "  --repeat R   measured runs after one warm-up; the best is reported (default 2)\n"
               "  --ctx N      context length (default prompt + gen + 16)\n"
               "  --activations q8|f32  decode activations before quantized weights (default q8)\n"
               "  --device cpu|cuda     backend (default cpu; cuda: GPU 0)\n"
               "  --cuda-graphs on|off  replay the decode step as a CUDA graph (default on)\n"
               "  --cuda-prefill f16|f32  quantized prefill on tensor cores (f16, default) or\n"
               "                        the quant plugins' f32 kernel\n"
               "  --cuda-gemm-columns N  cuBLAS GEMMs over tiles of N tokens, the last\n"
               "                        padded (device.cuda_gemm_column_tile; default 0: off)\n"
               "  --kv-type f16|f32|q8_0  the KV cache's type (default f16; q8_0: CPU)\n"
               "  --fusion on|off      let the backend fuse what it has lowered ops for\n"
               "                        (default on; off: the plan as the plugin wrote it)\n"
               "  --sequences N  also decode N sequences at once, one token each per step\n"
               "                        (default 1: no batched figure); adds batched_sequences,\n"
               "                        batched_decode_tok_s (all sequences' tokens) and\n"
               "                        batched_speedup (over the batch-1 decode tok/s)\n"
               "The JSON has fused_sequences (launches the lowering saves, both phases);\n"
               "cuda adds vram_bytes, cuda_graphs, decode_graph_kernels (the\n"
               "launches one replay stands for), device_copy_gb_s (measured device-to-device\n"
               "copy) and bandwidth_fraction (decode_weight_gb_s / device_copy_gb_s).\n"
               "Decoding is greedy; on cuda the argmax runs on the device, as the server's.\n");
}

int32_t Argmax(std::span<const float> row) {
  return static_cast<int32_t>(std::max_element(row.begin(), row.end()) - row.begin());
}

struct RunFigures {
  double prefill_s = 0;
  double ttft_s = 0;    // prefill + picking the first token
  double decode_s = 0;  // gen_tokens decode steps
  uint64_t decode_weight_bytes = 0;
};

// Greedy: on a device the argmax runs there and only the id crosses (the
// server's path); on the CPU over the host logits.
RunFigures RunOnce(engine::Engine& e, const std::vector<int32_t>& prompt, int64_t gen) {
  RunFigures f;
  e.Reset();
  e.counters().Reset();
  const bool device = e.cuda_backend() != nullptr;
  const double t0 = now_seconds();
  int32_t token = device ? e.PrefillGreedy(prompt) : Argmax(e.Prefill(prompt));
  f.ttft_s = now_seconds() - t0;
  f.prefill_s = f.ttft_s;
  const uint64_t before = e.counters().total_weight_bytes();
  const double t1 = now_seconds();
  for (int64_t i = 0; i < gen; ++i)
    token = device ? e.DecodeGreedy(token) : Argmax(e.Decode(token));
  f.decode_s = now_seconds() - t1;
  f.decode_weight_bytes = e.counters().total_weight_bytes() - before;
  return f;
}

// N sequences: each prompt alone (the CUDA backend's prompt steps), then
// `gen` steps of one greedy token per sequence. Returns the decode steps' seconds.
double RunBatched(engine::Engine& e, const std::vector<int32_t>& prompt, int64_t gen, int n) {
  std::vector<int> seqs;
  std::vector<int32_t> tokens;
  const auto vocab = static_cast<size_t>(e.info().vocab);
  for (int i = 0; i < n; ++i) {
    const int seq = e.OpenSequence();
    if (seq < 0 || !e.Reserve(seq, static_cast<int64_t>(prompt.size()) + gen + 1))
      throw Error(ErrorCode::kOutOfMemory,
                  "no sequence or KV blocks for sequence " + std::to_string(i));
    seqs.push_back(seq);
    const engine::StepPart part{seq, prompt, static_cast<int64_t>(prompt.size())};
    tokens.push_back(Argmax(e.Step({&part, 1})));
  }
  std::vector<engine::StepPart> parts(static_cast<size_t>(n));
  const double t0 = now_seconds();
  for (int64_t step = 0; step < gen; ++step) {
    for (size_t i = 0; i < parts.size(); ++i) parts[i] = {seqs[i], {&tokens[i], 1}, 0};
    const std::span<const float> logits = e.Step(parts);
    for (size_t i = 0; i < parts.size(); ++i) tokens[i] = Argmax(logits.subspan(i * vocab, vocab));
  }
  const double seconds = now_seconds() - t0;
  for (const int seq : seqs) e.CloseSequence(seq);
  return seconds;
}

double PeakRssMib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace

int run_model(const Args& args) {
  Options o;
  const int exit_code = ParseOrExit(
      "model", args,
      {Switch("--json", &o.json), StringFlag("--model", &o.model), IntFlag("--threads", &o.threads),
       IntFlag("--prompt", &o.prompt_tokens), IntFlag("--gen", &o.gen_tokens),
       IntFlag("--ctx", &o.context), IntFlag("--repeat", &o.repeat),
       PathListFlag("--plugin-dir", &o.plugin_dirs), StringFlag("--activations", &o.activations),
       StringFlag("--device", &o.device), StringFlag("--cuda-graphs", &o.cuda_graphs),
       StringFlag("--cuda-prefill", &o.cuda_prefill), StringFlag("--fusion", &o.fusion),
       IntFlag("--sequences", &o.sequences), StringFlag("--kv-type", &o.kv_type),
       IntFlag("--cuda-gemm-columns", &o.gemm_column_tile)},
      usage);
  if (exit_code >= 0) return exit_code;
  if (o.model.empty() || o.prompt_tokens <= 0 || o.gen_tokens <= 0 || o.repeat <= 0 ||
      o.sequences <= 0 || o.threads < 0 || o.context < 0 || o.gemm_column_tile < 0 ||
      (o.activations != "q8" && o.activations != "f32") ||
      (o.device != "cpu" && o.device != "cuda") ||
      (o.cuda_graphs != "on" && o.cuda_graphs != "off") ||
      (o.cuda_prefill != "f16" && o.cuda_prefill != "f32") ||
      (o.fusion != "on" && o.fusion != "off") || !engine::ParseKvType(o.kv_type)) {
    std::fprintf(stderr,
                 "orcd-bench model: --model is required; counts must be positive "
                 "(--cuda-gemm-columns: 0 or more); "
                 "--activations is q8 or f32; --device is cpu or cuda; --cuda-graphs is on or off; "
                 "--cuda-prefill is f16 or f32; --fusion is on or off; --kv-type is f16, f32 "
                 "or q8_0\n");
    usage(stderr);
    return 2;
  }
  Logger::Global().SetLevel(LogLevel::kWarn);
  try {
    PluginRegistry registry(HostServices());
    registry.LoadDirectories(o.plugin_dirs.empty() ? DefaultPluginDirs() : o.plugin_dirs);
    engine::EngineOptions eo;
    eo.device = o.device;
    eo.threads = o.threads;
    eo.q8_decode_activations = o.activations == "q8";
    eo.cuda_graphs = o.cuda_graphs == "on";
    eo.cuda_f16_prefill = o.cuda_prefill == "f16";
    eo.cuda_gemm_column_tile = o.gemm_column_tile;
    eo.fuse_ops = o.fusion == "on";
    eo.context_length = o.context > 0 ? o.context : o.prompt_tokens + o.gen_tokens + 16;
    eo.max_sequences = o.sequences;
    eo.kv_type = *engine::ParseKvType(o.kv_type);
    const double load_start = now_seconds();
    std::unique_ptr<engine::Engine> e = engine::Engine::Load(o.model, registry, eo);
    const double load_s = now_seconds() - load_start;
    const engine::ModelInfo& info = e->info();

    // Fixed ids spread over the vocabulary: the same prompt on every run.
    std::vector<int32_t> prompt(static_cast<size_t>(o.prompt_tokens));
    for (size_t i = 0; i < prompt.size(); ++i) {
      prompt[i] = static_cast<int32_t>((i * 7919 + 13) % static_cast<size_t>(info.vocab));
    }
    // The warm-up pages the mapped weights in and touches every buffer.
    RunOnce(*e,
            std::vector<int32_t>(prompt.begin(),
                                 prompt.begin() + std::min<int64_t>(16, o.prompt_tokens)),
            std::min<int64_t>(4, o.gen_tokens));
    RunFigures best;
    for (int r = 0; r < o.repeat; ++r) {
      const RunFigures f = RunOnce(*e, prompt, o.gen_tokens);
      if (r == 0 || f.prefill_s < best.prefill_s) {
        best.prefill_s = f.prefill_s;
        best.ttft_s = f.ttft_s;
      }
      if (r == 0 || f.decode_s < best.decode_s) {
        best.decode_s = f.decode_s;
        best.decode_weight_bytes = f.decode_weight_bytes;
      }
    }
    const double prefill_tps = static_cast<double>(o.prompt_tokens) / best.prefill_s;
    const double decode_tps = static_cast<double>(o.gen_tokens) / best.decode_s;
    const double bytes_per_token =
        static_cast<double>(best.decode_weight_bytes) / static_cast<double>(o.gen_tokens);
    std::string batched_json;
    double batched_tps = 0;
    if (o.sequences > 1) {
      e->Reset();  // the single-sequence API's sequence goes back to the pool
      double best_s = 0;
      for (int r = 0; r < o.repeat; ++r) {
        const double s = RunBatched(*e, prompt, o.gen_tokens, o.sequences);
        if (r == 0 || s < best_s) best_s = s;
      }
      batched_tps = static_cast<double>(o.gen_tokens * o.sequences) / best_s;
      batched_json = ",\"batched_sequences\":" + std::to_string(o.sequences) +
                     ",\"batched_decode_tok_s\":" + json_number(batched_tps) +
                     ",\"batched_speedup\":" + json_number(batched_tps / decode_tps);
    }
    const std::string cpu = cpu_model_name();
    std::string cuda_json;
    if (const engine::cuda::CudaBackend* b = e->cuda_backend()) {
      const CudaDevice d = probe_cuda_device();
      const double copy_gbps = d.usable ? d.copy_gbps : NAN;
      cuda_json = ",\"vram_bytes\":" + std::to_string(info.vram_bytes) +
                  ",\"cuda_graphs\":" + (b->graphs_on() ? "true" : "false") +
                  ",\"cuda_prefill\":" + json_string(o.cuda_prefill) +
                  ",\"cuda_gemm_column_tile\":" + std::to_string(o.gemm_column_tile) +
                  ",\"kv_type\":" + json_string(o.kv_type) +
                  ",\"decode_graph_kernels\":" + std::to_string(b->decode_graph_kernels()) +
                  ",\"device_copy_gb_s\":" + json_number(copy_gbps) + ",\"bandwidth_fraction\":" +
                  json_number(bytes_per_token * decode_tps / 1e9 / copy_gbps);
      if (!o.json) {
        std::printf("vram:     %.1f MiB; graphs %s, %zu kernels per decode step\n",
                    static_cast<double>(info.vram_bytes) / (1 << 20), b->graphs_on() ? "on" : "off",
                    b->decode_graph_kernels());
        std::printf("copy:     %.0f GB/s device-to-device (%s)\n", copy_gbps,
                    d.usable ? d.name.c_str() : d.reason.c_str());
      }
    }
    if (o.json) {
      std::printf(
          "{\"model\":%s,\"architecture\":%s,\"device\":%s,\"cpu\":%s,\"threads\":%d,"
          "\"weight_bytes\":%llu,\"load_s\":%s,\"prompt_tokens\":%lld,\"prefill_tok_s\":%s,"
          "\"ttft_ms\":%s,\"gen_tokens\":%lld,\"decode_tok_s\":%s,"
          "\"decode_weight_bytes_per_token\":%s,\"decode_weight_gb_s\":%s,\"repeat\":%d,"
          "\"peak_rss_mib\":%s,\"decode_activations\":%s,\"fused_sequences\":%lld%s%s}\n",
          json_string(o.model).c_str(), json_string(info.architecture).c_str(),
          json_string(info.device).c_str(), json_string(cpu).c_str(), info.threads,
          static_cast<unsigned long long>(info.weight_bytes), json_number(load_s).c_str(),
          static_cast<long long>(o.prompt_tokens), json_number(prefill_tps).c_str(),
          json_number(best.ttft_s * 1e3).c_str(), static_cast<long long>(o.gen_tokens),
          json_number(decode_tps).c_str(), json_number(bytes_per_token).c_str(),
          json_number(bytes_per_token * decode_tps / 1e9).c_str(), o.repeat,
          json_number(PeakRssMib()).c_str(), json_string(o.activations).c_str(),
          static_cast<long long>(info.fused_sequences), batched_json.c_str(), cuda_json.c_str());
    } else {
      std::printf("model:    %s (%s), %.1f MiB of weights\n", o.model.c_str(),
                  info.architecture.c_str(), static_cast<double>(info.weight_bytes) / (1 << 20));
      std::printf("device:   %s on %s, %s decode activations\n", info.device.c_str(), cpu.c_str(),
                  o.activations.c_str());
      std::printf("load:     %.3f s\n", load_s);
      std::printf("prefill:  %lld tokens, %.2f tok/s (best of %d)\n",
                  static_cast<long long>(o.prompt_tokens), prefill_tps, o.repeat);
      std::printf("ttft:     %.1f ms\n", best.ttft_s * 1e3);
      std::printf("decode:   %lld tokens, %.2f tok/s, %.1f MB of weights per token (%.2f GB/s)\n",
                  static_cast<long long>(o.gen_tokens), decode_tps, bytes_per_token / 1e6,
                  bytes_per_token * decode_tps / 1e9);
      if (o.sequences > 1) {
        std::printf("batched:  %d sequences, %.2f tok/s in all (%.2fx batch 1)\n", o.sequences,
                    batched_tps, batched_tps / decode_tps);
      }
      std::printf("peak rss: %.0f MiB\n", PeakRssMib());
    }
    return 0;
  } catch (const Error& err) {
    std::fprintf(stderr, "orcd-bench model: %s: %s\n",
                 std::string(ErrorCodeName(err.code())).c_str(), err.what());
    return 1;
  }
}

}  // namespace orcd::bench
