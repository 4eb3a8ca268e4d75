#include "host/tokenizer/family_traits.h"

#include "host/common/status.h"
#include "host/plugins/plugin_registry.h"

namespace orcd {

std::optional<FamilyTraits> FindFamilyTraits(const PluginRegistry& registry,
                                             std::string_view architecture) {
  const Claim<orcd_arch_plugin> claim = registry.FindArchitecture(architecture);
  const orcd_arch_plugin* arch = claim.entry;
  if (arch == nullptr || !ORCD_HAS_FIELD(arch, orcd_arch_plugin, n_chat_defaults) ||
      arch->chat_defaults == nullptr) {
    return std::nullopt;
  }
  for (uint32_t i = 0; i < arch->n_chat_defaults; ++i) {
    const orcd_chat_defaults& d = arch->chat_defaults[i];
    if (d.architecture == nullptr || architecture != d.architecture) continue;
    const std::string_view format = d.chat_format ? d.chat_format : "";
    const std::optional<ChatFormat> parsed = ParseChatFormat(format);
    if (!parsed) {
      throw Error(ErrorCode::kPluginRefused,
                  "plugin '" + (claim.plugin ? claim.plugin->name : std::string("?")) +
                      "' declares chat format '" + std::string(format) + "' for '" +
                      std::string(architecture) + "' (known: chatml, role-tags, harmony)");
    }
    FamilyTraits t;
    t.chat_format = *parsed;
    t.default_system = d.default_system ? d.default_system : "";
    t.rstrip_chat_tokens = d.rstrip_chat_tokens != 0;
    return t;
  }
  return std::nullopt;
}

}  // namespace orcd
