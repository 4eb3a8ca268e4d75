// The variables a chat template is rendered with, as transformers'
// apply_chat_template passes them: messages, tools (None when there are
// none), documents=None, add_generation_prompt, the special tokens the model
// defines (an absent token is not passed, so the template sees it
// undefined), then any extra keyword arguments (reasoning_effort,
// enable_thinking, date_string, ...).
#ifndef ORCD_HOST_CHAT_CHAT_VARIABLES_H_
#define ORCD_HOST_CHAT_CHAT_VARIABLES_H_

#include <optional>
#include <string>

#include "host/chat/jinja/value.h"

namespace orcd {

struct ChatRenderInput {
  jinja::Value messages = jinja::Value::List({});
  jinja::Value tools = jinja::Value::None();
  bool add_generation_prompt = true;
  std::optional<std::string> bos_token;
  std::optional<std::string> eos_token;
  jinja::Dict extra;  // kwargs, passed last (they may override the above)
};

jinja::Dict ChatVariables(const ChatRenderInput& input);

// One conversation in the shape of fixtures/chat/cases.json's cases
// ({"messages", "tools", "add_generation_prompt", "kwargs"}) plus optional
// "bos_token" / "eos_token" (null or absent: not passed). Throws
// orcd::Error(kInvalidArgument) for a malformed object.
ChatRenderInput ChatRenderInputFromCase(const jinja::Value& case_object);

}  // namespace orcd

#endif  // ORCD_HOST_CHAT_CHAT_VARIABLES_H_
