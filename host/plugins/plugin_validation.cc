#include "host/plugins/plugin_validation.h"

#include "host/gguf/ggml_type_traits.h"

namespace orcd {
namespace {

std::string ValidateArchitecture(const orcd_arch_plugin* a) {
  if (a == nullptr) return "architecture plugin has no architecture table";
  if (a->struct_size < sizeof(orcd_arch_plugin)) return "orcd_arch_plugin struct_size too small";
  if (a->n_architectures == 0 || a->architectures == nullptr) return "serves no architecture";
  for (uint32_t k = 0; k < a->n_architectures; ++k) {
    if (a->architectures[k] == nullptr || a->architectures[k][0] == '\0') {
      return "architecture name #" + std::to_string(k) + " is empty";
    }
  }
  if (a->compile == nullptr) return "architecture plugin has no compile function";
  return "";
}

std::string ValidateQuantType(const orcd_quant_type& t) {
  const std::string which = "type #" + std::to_string(static_cast<uint32_t>(t.type));
  if (t.struct_size < sizeof(orcd_quant_type)) return which + ": struct_size too small";
  const GgmlTypeTraits* ggml = FindGgmlType(t.type);
  if (ggml == nullptr) return which + " is not a ggml type";
  // A plugin whose block geometry disagrees with ggml's would read garbage.
  if (t.block_elems != ggml->block_elems || t.block_bytes != ggml->block_bytes) {
    return "claims " + std::string(ggml->name) + " with blocks of " +
           std::to_string(t.block_elems) + " elements / " + std::to_string(t.block_bytes) +
           " bytes, ggml's are " + std::to_string(ggml->block_elems) + " / " +
           std::to_string(ggml->block_bytes);
  }
  const orcd_quant_cpu_ops* cpu = t.cpu;
  // ABI 1.0's struct ends at matmul; later fields are optional.
  if (cpu == nullptr || !ORCD_HAS_FIELD(cpu, orcd_quant_cpu_ops, matmul) ||
      cpu->dequantize_row == nullptr || cpu->quantize_row == nullptr || cpu->get_rows == nullptr ||
      cpu->matmul == nullptr) {
    return std::string(ggml->name) + ": incomplete CPU functions";
  }
  const orcd_quant_cuda_ops* cuda = t.cuda;
  if (cuda != nullptr &&
      (cuda->struct_size < sizeof(orcd_quant_cuda_ops) || cuda->get_rows == nullptr ||
       cuda->matvec == nullptr || cuda->matmul == nullptr)) {
    return std::string(ggml->name) + ": incomplete CUDA functions";
  }
  return "";
}

std::string ValidateQuant(const orcd_quant_plugin* q) {
  if (q == nullptr) return "quant plugin has no type table";
  if (q->struct_size < sizeof(orcd_quant_plugin)) return "orcd_quant_plugin struct_size too small";
  if (q->n_types == 0 || q->types == nullptr) return "serves no type";
  for (uint32_t k = 0; k < q->n_types; ++k) {
    if (std::string r = ValidateQuantType(q->types[k]); !r.empty()) return r;
  }
  return "";
}

}  // namespace

std::string ValidateDescriptor(const orcd_plugin_descriptor& d) {
  // The ABI version is checked first: a different major may lay out
  // everything after it differently.
  if (d.abi_major != ORCD_ABI_MAJOR) {
    return "ABI major " + std::to_string(d.abi_major) + ", this host supports " +
           std::to_string(ORCD_ABI_MAJOR);
  }
  if (d.abi_minor > ORCD_ABI_MINOR) {
    return "ABI minor " + std::to_string(d.abi_minor) + " is newer than this host's " +
           std::to_string(ORCD_ABI_MINOR);
  }
  if (d.struct_size < sizeof(orcd_plugin_descriptor)) {
    return "descriptor struct_size " + std::to_string(d.struct_size) +
           " is smaller than ABI v1's " + std::to_string(sizeof(orcd_plugin_descriptor));
  }
  if (d.name == nullptr || d.name[0] == '\0') return "plugin has no name";
  switch (d.kind) {
    case ORCD_PLUGIN_ARCHITECTURE:
      return ValidateArchitecture(d.architecture);
    case ORCD_PLUGIN_QUANT:
      return ValidateQuant(d.quant);
  }
  return "unknown plugin kind " + std::to_string(static_cast<int>(d.kind));
}

}  // namespace orcd
