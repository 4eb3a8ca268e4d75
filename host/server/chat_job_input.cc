#include "host/server/chat_job_input.h"

namespace orcd {

ChatJobInput MakeChatJobInput(InferenceService& service, const ChatRequest& chat,
                              bool tools_enabled) {
  ChatPrompt prompt = service.ApplyChatTemplate(chat);
  ChatJobInput out;
  out.input.prompt = std::move(prompt.text);
  out.input.add_special_tokens = prompt.add_special_tokens;
  out.format = prompt.output_format;
  if (tools_enabled || out.format == ChatOutputFormat::kHarmony) {
    for (const std::string_view token : ChatOutputMarkupTokens(out.format)) {
      out.input.render_special.emplace_back(token);
    }
  }
  return out;
}

}  // namespace orcd
