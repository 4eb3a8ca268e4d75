// A conversation as a job's input, shared by the chat endpoints
// (/v1/chat/completions, /v1/messages, /v1/responses): the template's
// prompt, how to read the answer (its output format), and the markup tokens
// the answer's parser must see as text (tool calls, harmony channels).
#ifndef ORCD_HOST_SERVER_CHAT_JOB_INPUT_H_
#define ORCD_HOST_SERVER_CHAT_JOB_INPUT_H_

#include "host/chat/output/chat_output_format.h"
#include "host/generation/inference_service.h"

namespace orcd {

struct ChatJobInput {
  GenerationInput input;
  ChatOutputFormat format = ChatOutputFormat::kPlain;
};

// Throws Error when the template has no place for a role, or there is none.
ChatJobInput MakeChatJobInput(InferenceService& service, const ChatRequest& chat,
                              bool tools_enabled);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_CHAT_JOB_INPUT_H_
