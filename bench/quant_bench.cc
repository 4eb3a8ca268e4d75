// orcd-bench quant: matvec (one token) bandwidth of every quant type, in GB/s
// of weight bytes, on the CPU (one thread, then all threads splitting rows as
// the host does) and, when built and present, on the CUDA device (also as a
// fraction of the device's measured copy bandwidth; each launch on another
// copy of the weights, so memory and not L2 serves them). The CPU path is the f32
// matmul or, with --activations q8, matvec_q8 (the decode path); --variant
// picks a CPU kernel variant other than this CPU's best (A/B in one process).
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_flags.h"
#include "bench_util.h"
#include "common/cpu_kernel_set.h"
#include "quant_bench_cuda.h"
#include "subcommands.h"

namespace orcd::bench {
namespace {

struct Options {
  bool json = false;
  std::vector<std::string> types;   // empty: all
  int threads = 0;                  // 0: hardware concurrency
  double min_time = 0.3;            // seconds per measurement
  std::string activations = "f32";  // f32 | q8
  std::string variant = "best";     // best | portable | avx2 | avx512-vnni
  std::vector<std::string> shapes;  // "RxC"; empty: 4096x4096, 2880x2880
  int64_t tokens = 1;               // > 1: matmul (matmul_q8) over that many tokens
  std::string batched = "prompt";   // q8, tokens > 1: matmul_q8 (prompt) | matmul_q8_decode
};

struct Matrix {
  int64_t rows;
  int64_t cols;
  std::string note;
  std::vector<uint8_t> w;
};

struct Result {
  const quant::CpuKernels* kernels;
  int64_t rows;
  int64_t cols;
  std::string note;
  double bytes;
  double cpu_1t_gbps;
  double cpu_nt_gbps;
  double cuda_gbps;
};

void usage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: orcd-bench quant [--json] [--types T1,T2,...] [--threads N] [--min-time S]\n"
      "                        [--activations f32|q8] [--variant best|portable|avx2|avx512-vnni]\n"
      "                        [--shapes RxC,...] [--tokens N] [--batched prompt|decode]\n"
      "  CPU (and CUDA) matvec GB/s of weight bytes on 4096x4096 and 2880x2880 weights.\n"
      "  q8: the CPU decode path (x rounded to 8 bits, matvec_q8); types without it are left "
      "out.\n"
      "  --shapes: other weights (a model's, e.g. 896x896,4864x896; columns are rounded down\n"
      "  to whole blocks). --tokens N > 1: the CPU's matmul (q8: matmul_q8) over N tokens,\n"
      "  GB/s of weight bytes per call (the batched decode and prompt kernels; CUDA skipped).\n"
      "  --batched (q8, N > 1): the prompt kernel (matmul_q8, default) or the generated\n"
      "  tokens' one (matmul_q8_decode: several sequences decoding in one step).\n");
}

// rows x cols of the type: 16 distinct random rows quantized by the reference
// quantizer, repeated (bandwidth does not depend on the values, and quantizing
// 16M values with the K-quant search would dominate the run).
Matrix make_matrix(const quant::CpuKernels& k, int64_t rows, int64_t cols, std::string note) {
  Matrix m{rows, cols, std::move(note), {}};
  const int64_t row_bytes = cols / k.block_elems * k.block_bytes;
  constexpr int64_t kDistinct = 16;
  std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  std::vector<float> src(static_cast<size_t>(kDistinct * cols));
  for (float& v : src) v = normal(rng);
  std::vector<uint8_t> distinct(static_cast<size_t>(kDistinct * row_bytes));
  k.portable.quantize_row(src.data(), distinct.data(), kDistinct * cols);
  m.w.resize(static_cast<size_t>(rows * row_bytes));
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(m.w.data() + r * row_bytes, distinct.data() + (r % kDistinct) * row_bytes,
                static_cast<size_t>(row_bytes));
  }
  return m;
}

// The 8-bit kernel --batched names for several tokens.
decltype(orcd_quant_cpu_ops::matmul_q8) batched_q8_kernel(const orcd_quant_cpu_ops& ops,
                                                          const std::string& batched) {
  return batched == "decode" ? ops.matmul_q8_decode : ops.matmul_q8;
}

// Seconds per matvec on `threads` threads, each taking a contiguous row range
// (offset w and y by whole rows, as the host does).
double time_cpu_matvec(const orcd_quant_cpu_ops& ops, bool q8, const Matrix& m,
                       const quant::CpuKernels& k, int threads, double min_time, int64_t tokens,
                       const std::string& batched) {
  const int64_t row_bytes = m.cols / k.block_elems * k.block_bytes;
  std::vector<float> x(static_cast<size_t>(m.cols * tokens)),
      y(static_cast<size_t>(m.rows * tokens));
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f + 0.25f * static_cast<float>(i % 7);
  auto run_range = [&](int64_t r0, int64_t r1) {
    const uint8_t* w = m.w.data() + r0 * row_bytes;
    if (q8 && tokens == 1) {
      ops.matvec_q8(w, r1 - r0, m.cols, x.data(), y.data() + r0);
    } else if (q8) {
      batched_q8_kernel(ops, batched)(w, r1 - r0, m.cols, x.data(), tokens, y.data() + r0, m.rows);
    } else {
      ops.matmul(w, r1 - r0, m.cols, x.data(), tokens, y.data() + r0, m.rows);
    }
  };
  // Calibrate on one call (also warms caches and page tables).
  double t0 = now_seconds();
  run_range(0, m.rows);
  const double one = std::max(now_seconds() - t0, 1e-6);
  const int iters = static_cast<int>(std::clamp(min_time / (one / threads), 3.0, 100000.0));

  if (threads == 1) {
    t0 = now_seconds();
    for (int i = 0; i < iters; ++i) run_range(0, m.rows);
    return (now_seconds() - t0) / iters;
  }
  // Workers meet the timing thread at a barrier before and after each call.
  std::barrier sync(threads + 1);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const int64_t r0 = m.rows * t / threads, r1 = m.rows * (t + 1) / threads;
    pool.emplace_back([&, r0, r1] {
      for (int i = 0; i < iters; ++i) {
        sync.arrive_and_wait();
        run_range(r0, r1);
        sync.arrive_and_wait();
      }
    });
  }
  t0 = now_seconds();
  for (int i = 0; i < iters; ++i) {
    sync.arrive_and_wait();
    sync.arrive_and_wait();
  }
  const double seconds = (now_seconds() - t0) / iters;
  for (std::thread& t : pool) t.join();
  return seconds;
}

void print_text(const std::vector<Result>& results, const CudaDevice& cuda, int threads,
                const Options& o) {
  std::printf("CPU: %s, %u hardware threads, kernels: %s, activations: %s\n",
              cpu_model_name().c_str(), std::thread::hardware_concurrency(), o.variant.c_str(),
              o.activations.c_str());
  if (cuda.usable) {
    std::printf(
        "CUDA: %s, device-to-device copy %.1f GB/s (read + write); matvec%s cycling through "
        "%zu MiB of weight copies (beyond L2)\n",
        cuda.name.c_str(), cuda.copy_gbps, o.activations == "q8" ? "_q8" : "",
        kCudaColdBytes >> 20);
  } else {
    std::printf("CUDA: not measured (%s)\n", cuda.reason.c_str());
  }
  const char* kernel = o.tokens == 1                                    ? "matvec"
                       : o.activations == "q8" && o.batched == "decode" ? "matmul (decode)"
                                                                        : "matmul";
  std::printf("\n%s, GB/s of weight bytes (%lld token%s)\n", kernel,
              static_cast<long long>(o.tokens), o.tokens == 1 ? "" : "s");
  std::printf("%-6s %-11s %8s %9s %9s %9s %7s  %s\n", "type", "rows x cols", "MiB", "CPU 1T",
              ("CPU " + std::to_string(threads) + "T").c_str(), "CUDA", "%copy", "note");
  for (const Result& r : results) {
    const std::string shape = std::to_string(r.rows) + "x" + std::to_string(r.cols);
    std::printf("%-6s %-11s %8.1f %9.2f %9.2f", r.kernels->name, shape.c_str(), r.bytes / (1 << 20),
                r.cpu_1t_gbps, r.cpu_nt_gbps);
    if (cuda.usable && std::isfinite(r.cuda_gbps)) {
      std::printf(" %9.1f %6.1f%%", r.cuda_gbps, 100.0 * r.cuda_gbps / cuda.copy_gbps);
    } else {
      std::printf(" %9s %7s", "-", "-");
    }
    std::printf("  %s\n", r.note.c_str());
  }
}

void print_json(const std::vector<Result>& results, const CudaDevice& cuda, int threads,
                const Options& o) {
  std::printf("{\n  \"benchmark\": \"quant matvec\",\n  \"unit\": \"GB/s of weight bytes\",\n");
  std::printf(
      "  \"cpu\": {\"model\": %s, \"hardware_threads\": %u, \"threads\": %d, \"kernels\": %s, "
      "\"activations\": %s, \"tokens\": %lld, \"batched\": %s},\n",
      json_string(cpu_model_name()).c_str(), std::thread::hardware_concurrency(), threads,
      json_string(o.variant).c_str(), json_string(o.activations).c_str(),
      static_cast<long long>(o.tokens), json_string(o.batched).c_str());
  if (cuda.usable) {
    std::printf(
        "  \"cuda\": {\"device\": %s, \"copy_gbps\": %s, \"copy_gbps_counts\": \"read + "
        "write\", \"cycled_weight_bytes\": %zu},\n",
        json_string(cuda.name).c_str(), json_number(cuda.copy_gbps).c_str(), kCudaColdBytes);
  } else {
    std::printf("  \"cuda\": {\"device\": null, \"reason\": %s},\n",
                json_string(cuda.reason).c_str());
  }
  std::printf("  \"results\": [\n");
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    const double fraction = cuda.usable ? r.cuda_gbps / cuda.copy_gbps : NAN;
    std::printf(
        "    {\"type\": %s, \"rows\": %lld, \"cols\": %lld, \"weight_bytes\": %.0f, "
        "\"cpu_1t_gbps\": %s, \"cpu_nt_gbps\": %s, \"cuda_gbps\": %s, "
        "\"cuda_fraction_of_copy\": %s, \"note\": %s}%s\n",
        json_string(r.kernels->name).c_str(), static_cast<long long>(r.rows),
        static_cast<long long>(r.cols), r.bytes, json_number(r.cpu_1t_gbps).c_str(),
        json_number(r.cpu_nt_gbps).c_str(), json_number(r.cuda_gbps).c_str(),
        json_number(fraction).c_str(), json_string(r.note).c_str(),
        i + 1 < results.size() ? "," : "");
  }
  std::printf("  ]\n}\n");
}

}  // namespace

int run_quant(const Args& args) {
  Options o;
  const int exit_code = ParseOrExit(
      "quant", args,
      {Switch("--json", &o.json), CsvFlag("--types", &o.types), IntFlag("--threads", &o.threads),
       DoubleFlag("--min-time", &o.min_time), StringFlag("--activations", &o.activations),
       StringFlag("--variant", &o.variant), CsvFlag("--shapes", &o.shapes),
       IntFlag("--tokens", &o.tokens), StringFlag("--batched", &o.batched)},
      usage);
  if (exit_code >= 0) return exit_code;
  if (o.activations != "f32" && o.activations != "q8") {
    std::fprintf(stderr, "orcd-bench quant: --activations is f32 or q8\n");
    return 2;
  }
  const bool q8 = o.activations == "q8";
  if (o.batched != "prompt" && o.batched != "decode") {
    std::fprintf(stderr, "orcd-bench quant: --batched is prompt or decode\n");
    return 2;
  }
  if (o.tokens < 1 || o.tokens > 4096) {
    std::fprintf(stderr, "orcd-bench quant: --tokens is 1 to 4096\n");
    return 2;
  }
  if (o.shapes.empty()) o.shapes = {"4096x4096", "2880x2880"};
  std::vector<std::pair<int64_t, int64_t>> shapes;
  for (const std::string& shape : o.shapes) {
    long long rows = 0, cols = 0;
    char tail = 0;
    if (std::sscanf(shape.c_str(), "%lldx%lld%c", &rows, &cols, &tail) != 2 || rows < 1 ||
        cols < 256 || rows * cols > (int64_t{1} << 28)) {
      std::fprintf(stderr,
                   "orcd-bench quant: --shapes: %s is not ROWSxCOLS (cols >= 256, at most 2^28 "
                   "weights)\n",
                   shape.c_str());
      return 2;
    }
    shapes.emplace_back(rows, cols);
  }
  if (o.variant == "best") o.variant = quant::best_cpu_variant_name();
  const bool variant_runs = o.variant == "portable" ||
                            (o.variant == "avx2" && quant::cpu_has_avx2_fma()) ||
                            (o.variant == "avx512-vnni" && quant::cpu_has_avx512_vnni());
  if (!variant_runs) {
    std::fprintf(stderr, "orcd-bench quant: --variant %s: unknown, or this CPU lacks it\n",
                 o.variant.c_str());
    return 2;
  }
  auto variant_ops = [&](const quant::CpuKernels& k) -> const orcd_quant_cpu_ops& {
    if (o.variant == "avx512-vnni") return k.avx512_vnni;
    return o.variant == "avx2" ? k.avx2 : k.portable;
  };
  const int threads = o.threads > 0
                          ? o.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<const quant::CpuKernels*> selected;
  for (const quant::CpuKernels* k : quant::all_cpu_kernels()) {
    if (q8 && variant_ops(*k).matvec_q8 == nullptr) continue;
    if (q8 && o.tokens > 1 && batched_q8_kernel(variant_ops(*k), o.batched) == nullptr) continue;
    if (o.types.empty() || std::find(o.types.begin(), o.types.end(), k->name) != o.types.end()) {
      selected.push_back(k);
    }
  }
  if (selected.empty()) {
    // A type that exists may lack the kernel asked for in this variant (the
    // 8-bit prompt kernel, matmul_q8, of Q8_0 / Q5_0 is AVX-512 VNNI's alone).
    std::fprintf(stderr,
                 "orcd-bench quant: no type among --types has %s kernels in the %s variant\n",
                 !q8                     ? "f32"
                 : o.tokens == 1         ? "8-bit (matvec_q8)"
                 : o.batched == "decode" ? "8-bit batched decode (matmul_q8_decode)"
                                         : "8-bit batched (matmul_q8)",
                 o.variant.c_str());
    return 2;
  }
  const CudaDevice cuda = probe_cuda_device();

  std::vector<Result> results;
  for (const quant::CpuKernels* k : selected) {
    for (const auto& [rows, cols] : shapes) {
      // Whole blocks: 2880 is not a multiple of 256, super-block types take 2816 = 11 x 256.
      const int64_t fit = cols / k->block_elems * k->block_elems;
      const std::string note = fit == cols
                                   ? ""
                                   : "cols " + std::to_string(fit) + ": " + std::to_string(cols) +
                                         " is not a multiple of " + std::to_string(k->block_elems);
      const Matrix m = make_matrix(*k, rows, fit, note);
      const orcd_quant_cpu_ops& ops = variant_ops(*k);
      Result r{k, m.rows, m.cols, m.note, static_cast<double>(m.w.size()), NAN, NAN, NAN};
      r.cpu_1t_gbps =
          r.bytes / time_cpu_matvec(ops, q8, m, *k, 1, o.min_time, o.tokens, o.batched) / 1e9;
      r.cpu_nt_gbps =
          r.bytes / time_cpu_matvec(ops, q8, m, *k, threads, o.min_time, o.tokens, o.batched) / 1e9;
      if (cuda.usable && o.tokens == 1)
        r.cuda_gbps = cuda_matvec_gbps(k->type, m.w, m.rows, m.cols, q8, o.min_time);
      results.push_back(r);
    }
  }
  if (o.json) {
    print_json(results, cuda, threads, o);
  } else {
    print_text(results, cuda, threads, o);
  }
  return 0;
}

}  // namespace orcd::bench
