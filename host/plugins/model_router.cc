#include "host/plugins/model_router.h"

#include <set>

#include "host/common/status.h"
#include "host/gguf/ggml_type_traits.h"

namespace orcd {
namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "(none)" : out;
}

}  // namespace

ModelRoute DescribeRoute(const PluginRegistry& registry, const GgufFile& file,
                         std::vector<std::string>* problems) {
  ModelRoute route;
  route.architecture = std::string(file.architecture());
  if (route.architecture.empty()) {
    problems->push_back("the file has no general.architecture");
  } else {
    route.arch = registry.FindArchitecture(route.architecture);
    if (route.arch.plugin == nullptr) {
      problems->push_back(
          "architecture '" + route.architecture +
          "' is not served by any plugin; available: " + Join(registry.ArchitectureNames()));
    }
  }
  std::set<uint32_t> unserved;
  for (const GgufTensorInfo& t : file.tensors()) {
    ++route.type_mix[t.type];
    if (IsHostServedType(t.type) || route.quant.count(t.type) || unserved.count(t.type)) continue;
    Claim<orcd_quant_type> claim = registry.FindQuantType(t.type);
    if (claim.plugin == nullptr) {
      unserved.insert(t.type);  // name the first tensor of each type only
      problems->push_back("tensor '" + t.name + "' has type " + GgmlTypeName(t.type) +
                          " which no plugin serves; available: " + Join(registry.QuantTypeNames()));
      continue;
    }
    route.quant.emplace(t.type, claim);
  }
  return route;
}

ModelRoute RouteModel(const PluginRegistry& registry, const GgufFile& file) {
  std::vector<std::string> problems;
  ModelRoute route = DescribeRoute(registry, file, &problems);
  if (!problems.empty()) {
    const ErrorCode code =
        route.architecture.empty() ? ErrorCode::kModelInvalid : ErrorCode::kUnsupported;
    std::string message;
    for (const std::string& p : problems) message += (message.empty() ? "" : "; ") + p;
    throw Error(code, file.source_name() + ": " + message);
  }
  return route;
}

}  // namespace orcd
