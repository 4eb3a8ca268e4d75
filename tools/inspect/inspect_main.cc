// orcd-inspect FILE.gguf: a user's first check that a model file is supported.
// Prints the architecture, the plugins that would serve it, the key
// hyperparameters, the tensor count and ggml-type mix, and the size.
// Exit codes: 0 supported, 3 readable but not servable, 1 unreadable, 2 usage.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/engine/cpu/cpu_adapters.h"
#include "host/engine/cuda/cuda_adapters.h"
#include "host/engine/engine.h"
#include "host/engine/plan_builder.h"
#include "host/engine/plan_validator.h"
#include "host/engine/weight_table.h"
#include "host/gguf/ggml_type_traits.h"
#include "host/gguf/gguf_file.h"
#include "host/plugins/host_services.h"
#include "host/plugins/model_router.h"
#include "host/plugins/plugin_registry.h"
#include "host/plugins/plugin_search_path.h"

namespace {

constexpr int kExitSupported = 0;
constexpr int kExitUnreadable = 1;
constexpr int kExitUsage = 2;
constexpr int kExitUnsupported = 3;

void Usage() {
  std::fprintf(stderr,
               "usage: orcd-inspect [--plugin-dir DIR]... [--json] [--device cpu|cuda] FILE.gguf\n"
               "  --plugin-dir DIR  look for plugins in DIR (repeatable; default: the\n"
               "                    installation's plugin dir, then /etc/orcd/plugins.d)\n"
               "  --json            machine-readable output\n"
               "  --device D        cpu (default) or cuda: whether that backend can run it\n"
               "exit status: 0 supported, 3 readable but not servable, 1 unreadable, 2 usage\n");
}

std::string HumanBytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

struct TypeStats {
  uint64_t tensors = 0;
  uint64_t bytes = 0;
  std::string served_by;
};

struct Report {
  const orcd::GgufFile* file;
  orcd::ModelRoute route;
  std::vector<std::string> problems;
  std::map<std::string, TypeStats> mix;  // by type name
  std::vector<std::pair<std::string, std::string>> hparams;
  uint64_t parameters = 0;
};

// What orcd-host's load does with the file before it is servable: the
// architecture plugin's plan compile and the host's validation of that plan
// against the tensors and this device's adapters. Any failure is a problem,
// so that "supported: yes" is exactly what the worker will accept.
void CheckLoadable(const orcd::GgufFile& file, const orcd::ModelRoute& route,
                   const std::string& device, std::vector<std::string>* problems) {
  if (route.arch.entry == nullptr || !problems->empty()) return;
  try {
    const orcd::engine::WeightTable weights(file, route.quant);
    const orcd::engine::ExecutionPlan plan = orcd::engine::CompilePlan(*route.arch.entry, file);
    const orcd::engine::AdapterTable adapters = device == "cuda"
                                                    ? orcd::engine::cuda::MakeCudaAdapterTable()
                                                    : orcd::engine::cpu::MakeCpuAdapterTable();
    orcd::engine::ValidatePlan(plan, weights, adapters, orcd::engine::EngineOptions{}.max_batch);
  } catch (const std::exception& e) {
    problems->push_back(e.what());
  }
}

Report BuildReport(const orcd::PluginRegistry& registry, const orcd::GgufFile& file,
                   const std::string& device) {
  Report r{&file, {}, {}, {}, {}, 0};
  r.route = orcd::DescribeRoute(registry, file, &r.problems);
  if (device == "cuda") {  // every quantized type needs its plugin's CUDA kernels
    for (const auto& [type, claim] : r.route.quant) {
      if (claim.entry != nullptr && claim.entry->cuda == nullptr) {
        r.problems.push_back(std::string(orcd::GgmlTypeName(type)) + ": plugin '" +
                             claim.plugin->name + "' has no CUDA kernels (built without CUDA)");
      }
    }
  }
  CheckLoadable(file, r.route, device, &r.problems);
  for (const orcd::GgufTensorInfo& t : file.tensors()) {
    TypeStats& s = r.mix[orcd::GgmlTypeName(t.type)];
    ++s.tensors;
    s.bytes += t.n_bytes;
    r.parameters += static_cast<uint64_t>(t.n_elements());
    if (orcd::IsHostServedType(t.type)) {
      s.served_by = "host";
    } else if (auto it = r.route.quant.find(t.type); it != r.route.quant.end()) {
      s.served_by = it->second.plugin->name;
    } else {
      s.served_by = "-";
    }
  }
  // Hyperparameters are the "<architecture>." keys: generic, no per-model list.
  const std::string prefix = r.route.architecture + ".";
  for (const auto& [key, value] : file.metadata()) {
    if (!r.route.architecture.empty() && key.rfind(prefix, 0) == 0) {
      r.hparams.emplace_back(key.substr(prefix.size()), value.ToDisplayString());
    }
  }
  if (const orcd::GgufValue* tokens = file.Find("tokenizer.ggml.tokens")) {
    r.hparams.emplace_back("vocab_size (tokenizer.ggml.tokens)",
                           std::to_string(tokens->items.size()));
  }
  if (auto model = file.GetString("tokenizer.ggml.model")) {
    r.hparams.emplace_back("tokenizer.ggml.model", std::string(*model));
  }
  return r;
}

void PrintText(const Report& r) {
  const orcd::GgufFile& f = *r.file;
  std::printf("file:          %s\n", f.source_name().c_str());
  std::printf("size:          %s (%llu bytes)\n", HumanBytes(f.file_size()).c_str(),
              static_cast<unsigned long long>(f.file_size()));
  std::printf("gguf version:  %u (alignment %llu)\n", f.version(),
              static_cast<unsigned long long>(f.alignment()));
  std::printf("architecture:  %s\n",
              r.route.architecture.empty() ? "(missing)" : r.route.architecture.c_str());
  if (auto name = f.GetString("general.name")) {
    std::printf("name:          %.*s\n", static_cast<int>(name->size()), name->data());
  }
  if (r.route.arch.plugin) {
    std::printf("served by:     %s %s (%s)\n", r.route.arch.plugin->name.c_str(),
                r.route.arch.plugin->version.c_str(), r.route.arch.plugin->path.c_str());
  } else {
    std::printf("served by:     (no architecture plugin)\n");
  }
  std::printf("hyperparameters:\n");
  for (const auto& [k, v] : r.hparams) std::printf("  %-40s %s\n", k.c_str(), v.c_str());
  std::printf("tensors:       %zu (%llu parameters)\n", f.tensors().size(),
              static_cast<unsigned long long>(r.parameters));
  std::printf("type mix:\n");
  for (const auto& [type, s] : r.mix) {
    std::printf("  %-8s %5llu tensors %12s  served by %s\n", type.c_str(),
                static_cast<unsigned long long>(s.tensors), HumanBytes(s.bytes).c_str(),
                s.served_by.c_str());
  }
  std::printf("supported:     %s\n", r.problems.empty() ? "yes" : "no");
  for (const std::string& p : r.problems) std::printf("  - %s\n", p.c_str());
}

void PrintJson(const Report& r) {
  using orcd::JsonEscape;
  const orcd::GgufFile& f = *r.file;
  std::string out = "{\"file\":\"" + JsonEscape(f.source_name()) + "\"";
  out += ",\"size_bytes\":" + std::to_string(f.file_size());
  out += ",\"gguf_version\":" + std::to_string(f.version());
  out += ",\"architecture\":\"" + JsonEscape(r.route.architecture) + "\"";
  out += ",\"plugin\":" + (r.route.arch.plugin ? "\"" + JsonEscape(r.route.arch.plugin->name) + "\""
                                               : std::string("null"));
  out += ",\"tensor_count\":" + std::to_string(f.tensors().size());
  out += ",\"parameters\":" + std::to_string(r.parameters);
  out += ",\"type_mix\":{";
  bool first = true;
  for (const auto& [type, s] : r.mix) {
    out += std::string(first ? "" : ",") + "\"" + type +
           "\":{\"tensors\":" + std::to_string(s.tensors) +
           ",\"bytes\":" + std::to_string(s.bytes) + ",\"served_by\":\"" + JsonEscape(s.served_by) +
           "\"}";
    first = false;
  }
  out += "},\"hyperparameters\":{";
  first = true;
  for (const auto& [k, v] : r.hparams) {
    out += std::string(first ? "" : ",") + "\"" + JsonEscape(k) + "\":\"" + JsonEscape(v) + "\"";
    first = false;
  }
  out += "},\"supported\":" + std::string(r.problems.empty() ? "true" : "false");
  out += ",\"problems\":[";
  for (size_t k = 0; k < r.problems.size(); ++k) {
    out += std::string(k ? "," : "") + "\"" + JsonEscape(r.problems[k]) + "\"";
  }
  out += "]}\n";
  std::fputs(out.c_str(), stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> plugin_dirs;
  bool json = false;
  std::string path;
  std::string device = "cpu";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--plugin-dir") == 0 && i + 1 < argc) {
      plugin_dirs.emplace_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      device = argv[++i];
      if (device != "cpu" && device != "cuda") {
        std::fprintf(stderr, "orcd-inspect: --device wants cpu or cuda, got '%s'\n",
                     device.c_str());
        return 2;
      }
    } else if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      Usage();
      return kExitSupported;
    } else if (argv[i][0] == '-' || !path.empty()) {
      Usage();
      return kExitUsage;
    } else {
      path = argv[i];
    }
  }
  if (path.empty()) {
    Usage();
    return kExitUsage;
  }
  // Plugin load chatter goes to stderr only when something is wrong.
  orcd::Logger::Global().SetLevel(orcd::LogLevel::kWarn);
  try {
    auto file = orcd::GgufFile::Open(path);
    orcd::PluginRegistry registry(orcd::HostServices());
    registry.LoadDirectories(plugin_dirs.empty() ? orcd::DefaultPluginDirs() : plugin_dirs);
    const Report report = BuildReport(registry, *file, device);
    json ? PrintJson(report) : PrintText(report);
    return report.problems.empty() ? kExitSupported : kExitUnsupported;
  } catch (const orcd::Error& e) {
    std::fprintf(stderr, "orcd-inspect: %s: %s\n",
                 std::string(orcd::ErrorCodeName(e.code())).c_str(), e.what());
    return kExitUnreadable;
  }
}
