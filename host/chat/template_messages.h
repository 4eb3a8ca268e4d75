// OpenAI chat messages as chat templates expect them. Clients send what the
// OpenAI API defines; templates were written against transformers' docs, and
// differ among themselves:
//  - tool call arguments: OpenAI sends a JSON string; most templates want an
//    object (Qwen2.5 and Llama 3.1 print it with tojson, gpt-oss too), a few
//    concatenate a string (DeepSeek-R1's raises on an object). Which one a
//    template takes is found once, by rendering a probe conversation.
//  - an assistant message with tool calls and "content": null: gpt-oss tests
//    `"content" in message` and then reads it (the null must go), DeepSeek-R1
//    renders the calls only when content `is none` (it must stay). The same
//    probe finds which.
//  - reasoning sent back as "reasoning_content" (what orcd returns) is also
//    given as "thinking", the name gpt-oss's template reads.
#ifndef ORCD_HOST_CHAT_TEMPLATE_MESSAGES_H_
#define ORCD_HOST_CHAT_TEMPLATE_MESSAGES_H_

#include "host/chat/chat_variables.h"
#include "host/chat/jinja/jinja_template.h"

namespace orcd {

struct TemplateMessageOptions {
  bool arguments_as_objects = true;
  bool drop_null_content = true;  // of assistant messages with tool calls
};

// Renders a probe conversation (a call with arguments {"probe_key": ...})
// with the arguments as an object, then as a string, each without content
// and with content null, and keeps the first that shows the arguments.
// Defaults to objects without content when none does (a template without
// tool support).
TemplateMessageOptions ProbeTemplateMessageOptions(const jinja::JinjaTemplate& chat_template,
                                                   const ChatRenderInput& tokens);

// `messages` (a list of dicts, as validated by the OpenAI request parser)
// in the shape above.
jinja::Value PrepareTemplateMessages(const jinja::Value& messages,
                                     const TemplateMessageOptions& options);

}  // namespace orcd

#endif  // ORCD_HOST_CHAT_TEMPLATE_MESSAGES_H_
