// One choice of an OpenAI completion as it is generated: text collected for a
// non-streamed answer, or streamed as chunks ("data: {...}\n\n") whose
// `index` is the choice's. Choices of one request (n > 1) generate on their
// own threads and share one SseWriter, which keeps their chunks whole.
#ifndef ORCD_HOST_SERVER_OPENAI_CHOICE_OBSERVER_H_
#define ORCD_HOST_SERVER_OPENAI_CHOICE_OBSERVER_H_

#include <atomic>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "host/chat/output/chat_output_parser.h"
#include "host/generation/inference_service.h"
#include "host/server/job_slots.h"
#include "host/server/openai_chat_output.h"
#include "host/tokenizer/tokenizer.h"

namespace orcd {

// The response stream of one request, written from several threads.
class SseWriter {
 public:
  explicit SseWriter(std::ostream* stream) : stream_(stream) {}
  // Writes "data: <payload>\n\n"; false once the client is gone (then every
  // later write is refused too).
  bool Data(const std::string& payload);
  // Writes "event: <name>\ndata: <payload>\n\n" (Anthropic's named events).
  bool Event(const std::string& name, const std::string& payload);
  bool ok() const { return ok_; }
  void MarkGone() { ok_ = false; }

 private:
  bool Write(const std::string& bytes);
  std::ostream* stream_;
  std::mutex mu_;
  std::atomic<bool> ok_{true};
};

class OpenAiChoiceObserver : public GenerationObserver {
 public:
  // `writer` null: collect for a non-streamed answer. `chunk_prefix` opens a
  // chunk up to its choices array. `client_gone` is polled between tokens
  // and during the prefill: a vanished client is otherwise noticed only at
  // the next write.
  OpenAiChoiceObserver(const JobTicket& ticket, SseWriter* writer, std::string chunk_prefix,
                       bool chat, int choice, std::function<bool()> client_gone);

  // Chat: generated text goes through the format's parser into `output`.
  void SetChatOutput(ChatOutputParser* parser, OpenAiChatOutput* output) {
    parser_ = parser;
    output_ = output;
  }
  // Logprobs asked for: tokens' entries rendered with `tokenizer`.
  void SetLogprobs(const Tokenizer* tokenizer) { tokenizer_ = tokenizer; }
  // Called once, at the choice's first token (its prompt is evaluated then).
  void OnFirstToken(std::function<void()> hook) { first_token_ = std::move(hook); }

  void OnLogprobs(int64_t index, const TokenLogprobs& logprobs) override;
  bool OnToken(int64_t index, const std::string& text) override;
  bool Cancelled() override;

  // A chunk with this choice's `choice_json` (an element of "choices").
  bool Chunk(const std::string& choice_json);
  // The whole choice's logprobs for a non-streamed answer ("null" when not asked).
  std::string AllLogprobs() const;
  bool ok() const { return writer_ == nullptr || writer_->ok(); }
  // The client disconnected, or its stream could not be written.
  bool client_left() const { return gone_ || !ok(); }
  const std::string& text() const { return text_; }
  int choice() const { return choice_; }

 private:
  const JobTicket& ticket_;
  SseWriter* writer_;
  std::string prefix_;
  bool chat_;
  int choice_;
  std::string index_;  // ",\"index\":N"
  std::function<bool()> client_gone_;
  bool gone_ = false;
  std::string text_;
  ChatOutputParser* parser_ = nullptr;
  OpenAiChatOutput* output_ = nullptr;
  const Tokenizer* tokenizer_ = nullptr;
  std::function<void()> first_token_;
  std::vector<TokenLogprobs> logprobs_;  // every generated token's, in order
  size_t sent_ = 0;                      // of which streamed
  int64_t text_offset_ = 0;              // completions: bytes of text streamed
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_OPENAI_CHOICE_OBSERVER_H_
