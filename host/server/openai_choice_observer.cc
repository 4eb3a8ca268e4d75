#include "host/server/openai_choice_observer.h"

#include <utility>

#include <algorithm>
#include <span>

#include "host/common/json_escape.h"
#include "host/server/openai_logprobs.h"

namespace orcd {
bool SseWriter::Data(const std::string& payload) { return Write("data: " + payload + "\n\n"); }

bool SseWriter::Event(const std::string& name, const std::string& payload) {
  return Write("event: " + name + "\ndata: " + payload + "\n\n");
}

bool SseWriter::Write(const std::string& bytes) {
  std::lock_guard lock(mu_);
  if (!ok_) return false;
  try {
    *stream_ << bytes;
    stream_->flush();
    ok_ = stream_->good();
  } catch (const std::exception&) {
    ok_ = false;
  }
  return ok_;
}

OpenAiChoiceObserver::OpenAiChoiceObserver(const JobTicket& ticket, SseWriter* writer,
                                           std::string chunk_prefix, bool chat, int choice,
                                           std::function<bool()> client_gone)
    : ticket_(ticket),
      writer_(writer),
      prefix_(std::move(chunk_prefix)),
      chat_(chat),
      choice_(choice),
      index_(",\"index\":" + std::to_string(choice)),
      client_gone_(std::move(client_gone)) {}

void OpenAiChoiceObserver::OnLogprobs(int64_t, const TokenLogprobs& logprobs) {
  logprobs_.push_back(logprobs);
}

bool OpenAiChoiceObserver::OnToken(int64_t index, const std::string& text) {
  if (first_token_) std::exchange(first_token_, nullptr)();
  // The logprobs of the tokens up to this one (a held-back token's text
  // comes with its own index, after the next token's logprobs).
  const size_t ready = std::min(logprobs_.size(), static_cast<size_t>(index + 1));
  const std::span<const TokenLogprobs> fresh(logprobs_.data() + sent_, ready - sent_);
  if (parser_ != nullptr) {
    parser_->Push(text, *output_);
    if (writer_ && tokenizer_ && !fresh.empty()) {
      Chunk("{\"delta\":{},\"logprobs\":" + ChatLogprobsJson(*tokenizer_, fresh) + index_ +
            ",\"finish_reason\":null}");
      sent_ = ready;
    }
    return ok();
  }
  if (!writer_) {
    text_ += text;
    return true;
  }
  if (text.empty() && (tokenizer_ == nullptr || fresh.empty())) return ok();
  std::string logprobs = "null";
  if (tokenizer_ != nullptr) {
    logprobs = CompletionLogprobsJson(*tokenizer_, fresh, &text_offset_);
    sent_ = ready;
  }
  return Chunk(chat_ ? "{\"delta\":{\"content\":" + JsonQuote(text) + "}" + index_ +
                           ",\"finish_reason\":null}"
                     : "{\"text\":" + JsonQuote(text) + index_ + ",\"logprobs\":" + logprobs +
                           ",\"finish_reason\":null}");
}

bool OpenAiChoiceObserver::Cancelled() {
  if (!gone_ && client_gone_()) {
    gone_ = true;
    if (writer_ != nullptr) writer_->MarkGone();
  }
  return ticket_.cancelled() || client_left();
}

bool OpenAiChoiceObserver::Chunk(const std::string& choice_json) {
  return writer_ != nullptr && writer_->Data(prefix_ + choice_json + "]}");
}

std::string OpenAiChoiceObserver::AllLogprobs() const {
  if (tokenizer_ == nullptr) return "null";
  if (chat_) return ChatLogprobsJson(*tokenizer_, logprobs_);
  int64_t offset = 0;
  return CompletionLogprobsJson(*tokenizer_, logprobs_, &offset);
}

}  // namespace orcd
