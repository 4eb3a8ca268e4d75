#include "host/generation/batch_scheduler.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <string>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/generation/mixed_step.h"
#include "host/generation/scheduled_sequence.h"

namespace orcd {

class BatchScheduler::Source final : public LogitSource {
 public:
  Source(BatchScheduler& scheduler, std::shared_ptr<Sequence> seq, int64_t context_length)
      : scheduler_(scheduler), seq_(std::move(seq)), context_length_(context_length) {}
  ~Source() override { scheduler_.Close(seq_); }

  void Reset() override {
    if (seq_->length.load() != 0)
      throw Error(ErrorCode::kInternal, "a scheduled sequence cannot be reset");
  }
  std::span<const float> Prefill(std::span<const int32_t> tokens) override {
    return scheduler_.Evaluate(*seq_, tokens, static_cast<int64_t>(tokens.size()));
  }
  std::span<const float> Decode(int32_t token) override {
    return scheduler_.Evaluate(*seq_, {&token, 1}, 0);
  }
  // On a device that samples, every pick is made there, a step's rows in one
  // launch (greedy: the same argmax, ties to the lowest id).
  bool SamplesOnDevice() const override { return scheduler_.engine_.samples_on_device(); }
  bool LogprobsOnDevice() const override { return SamplesOnDevice(); }
  bool OverlapsMasks() const override { return SamplesOnDevice(); }
  int32_t PrefillGreedy(std::span<const int32_t> tokens) override {
    if (!SamplesOnDevice()) return LogitSource::PrefillGreedy(tokens);
    return Pick(tokens, static_cast<int64_t>(tokens.size()), Greedy());
  }
  int32_t DecodeGreedy(int32_t token) override {
    if (!SamplesOnDevice()) return LogitSource::DecodeGreedy(token);
    return Pick({&token, 1}, 0, Greedy());
  }
  int32_t PrefillSample(std::span<const int32_t> tokens, const SampleDraw& draw) override {
    return Pick(tokens, static_cast<int64_t>(tokens.size()), engine::SampleRequest::From(draw),
                draw.allowed_later);
  }
  int32_t DecodeSample(int32_t token, const SampleDraw& draw) override {
    return Pick({&token, 1}, 0, engine::SampleRequest::From(draw), draw.allowed_later);
  }
  int64_t position() const override { return seq_->length.load(); }
  double queued_ms() const override { return seq_->queued_ms.load(); }
  int64_t cached_prompt_tokens() const override { return seq_->cached_tokens.load(); }
  int64_t context_length() const override { return context_length_; }
  void SetStopCheck(std::function<bool()> check) override {
    std::lock_guard lock(scheduler_.mu_);
    seq_->stop_check = std::move(check);
  }

 private:
  static engine::SampleRequest Greedy() {
    engine::SampleRequest r;
    r.temperature = 0.0;
    return r;
  }
  int32_t Pick(std::span<const int32_t> tokens, int64_t prompt_tokens,
               const engine::SampleRequest& request,
               const std::function<std::span<const uint64_t>()>& allowed_later = nullptr) {
    int32_t token = -1;
    scheduler_.Evaluate(*seq_, tokens, prompt_tokens, &request, &token, allowed_later);
    return token;
  }

  BatchScheduler& scheduler_;
  std::shared_ptr<Sequence> seq_;
  int64_t context_length_;
};

BatchScheduler::BatchScheduler(engine::Engine& engine, SchedulerOptions options)
    : engine_(engine), options_(options), vocab_(engine.info().vocab) {
  if (options_.max_batched_tokens < 1)
    throw Error(ErrorCode::kInvalidArgument, "max_batched_tokens must be at least 1");
  if (options_.prompt_batch_tokens < 1)
    throw Error(ErrorCode::kInvalidArgument, "prompt_batch_tokens must be at least 1");
  const engine::KvPoolInfo pool = engine_.kv_pool();
  stats_.slots_total = pool.max_sequences;
  stats_.kv_blocks_total = pool.blocks_total;
  UpdatePoolStats();
  thread_ = std::thread([this] { Loop(); });
}

BatchScheduler::~BatchScheduler() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  thread_.join();
}

std::unique_ptr<LogitSource> BatchScheduler::OpenSequence(int64_t positions, uint64_t cache_salt) {
  positions = std::min(positions, engine_.info().context_length);
  const int64_t blocks = engine_.BlocksFor(positions);
  if (blocks > stats_.kv_blocks_total) {
    throw Error(ErrorCode::kInvalidArgument,
                "the request needs " + std::to_string(blocks) + " KV blocks (" +
                    std::to_string(positions) + " positions) but the KV pool holds " +
                    std::to_string(stats_.kv_blocks_total) +
                    "; lower max_tokens or raise limits.kv_cache_bytes");
  }
  auto seq = std::make_shared<Sequence>();
  seq->cache_salt = cache_salt;
  {
    std::lock_guard lock(mu_);
    waiting_.push_back(seq);
    ++changes_;
  }
  work_cv_.notify_all();
  return std::make_unique<Source>(*this, std::move(seq), engine_.info().context_length);
}

ServingStats BatchScheduler::stats() const {
  std::lock_guard lock(mu_);
  ServingStats s = stats_;
  s.running = static_cast<int>(
      std::count_if(running_.begin(), running_.end(), [](const auto& seq) { return !seq->fill; }));
  s.waiting = static_cast<int>(waiting_.size());
  return s;
}

std::span<const float> BatchScheduler::Evaluate(
    Sequence& seq, std::span<const int32_t> tokens, int64_t prompt_tokens,
    const engine::SampleRequest* sample, int32_t* token,
    const std::function<std::span<const uint64_t>()>& allowed_later) {
  std::unique_lock lock(mu_);
  seq.pending.assign(tokens.begin(), tokens.end());
  seq.prompt_tokens = prompt_tokens;
  seq.sampling = sample != nullptr;
  if (sample != nullptr) seq.sample = *sample;  // its penalized span outlives the wait
  seq.mask_pending = sample != nullptr && allowed_later != nullptr;
  if (seq.mask_pending) {
    // Called by the stepping thread (RunStep, without mu_) before it samples.
    seq.sample.await_allowed = [this, s = &seq] {
      std::unique_lock wait(mu_);
      s->mask_cv.wait(wait, [s] { return !s->mask_pending; });
    };
  }
  seq.fed = 0;
  seq.ready = false;
  seq.error = nullptr;
  seq.asked = true;
  ++changes_;
  work_cv_.notify_all();
  std::exception_ptr mask_error;
  if (seq.mask_pending) {
    // The mask is computed while the step is gathered and evaluated; a mask
    // that fails leaves the row unmasked, and its pick is dropped below.
    lock.unlock();
    std::span<const uint64_t> allowed;
    try {
      allowed = allowed_later();
    } catch (...) {
      mask_error = std::current_exception();
    }
    lock.lock();
    seq.sample.allowed = allowed;
    seq.mask_pending = false;
    seq.mask_cv.notify_all();
  }
  seq.cv.wait(lock, [&] { return seq.ready; });
  seq.sample.await_allowed = nullptr;
  if (mask_error) std::rethrow_exception(mask_error);
  if (seq.error) std::rethrow_exception(seq.error);
  if (token != nullptr) *token = seq.token;
  return seq.logits;
}

void BatchScheduler::Close(const std::shared_ptr<Sequence>& seq) {
  {
    std::lock_guard lock(mu_);
    seq->asked = false;
    const auto it = std::find(waiting_.begin(), waiting_.end(), seq);
    if (it != waiting_.end()) {
      waiting_.erase(it);  // never admitted: nothing to free
    } else {
      closing_.push_back(seq);
    }
    ++changes_;
  }
  work_cv_.notify_all();
}

bool BatchScheduler::HasWork() const {
  if (!closing_.empty()) return true;
  for (const auto& seq : running_)
    if (seq->asked) return true;
  // The first waiting sequence, once it asked, may be admitted (admission is
  // in order: the others wait behind it).
  return !waiting_.empty() && waiting_.front()->asked;
}

bool BatchScheduler::AllRunningAsked() const {
  for (const auto& seq : running_)
    if (!seq->asked) return false;
  return true;
}

void BatchScheduler::UpdatePoolStats() {
  const engine::KvPoolInfo pool = engine_.kv_pool();
  stats_.kv_blocks_free = pool.blocks_free;
  stats_.prefix_cache = pool.prefix_cache;
  stats_.kv_blocks_cached = pool.blocks_cached;
  stats_.prefix_query_tokens = pool.prefix_query_tokens;
  stats_.prefix_hit_tokens = pool.prefix_hit_tokens;
  stats_.kv_block_evictions = pool.evictions;
}

void BatchScheduler::Loop() {
  std::unique_lock lock(mu_);
  while (true) {
    work_cv_.wait(lock, [&] { return stop_ || HasWork(); });
    if (stop_) break;
    CloseAndAdmit();
    // Let the last step's sequences come back (they stream their token on
    // their own threads first) so that they share this step.
    if (!AllRunningAsked()) {
      work_cv_.wait_for(lock, options_.gather, [&] { return stop_ || AllRunningAsked(); });
      if (stop_) break;
      CloseAndAdmit();
    }
    // A sequence whose request was cancelled or timed out (its stop check)
    // ends here, before it costs a step; so does one still waiting.
    const auto stopped = [](const Sequence& seq) { return seq.stop_check && seq.stop_check(); };
    StopAsked(stopped, "sequence stopped");

    // Blocks for every asked sequence's tokens, earlier admissions first;
    // when the pool runs out the latest admitted ones are preempted.
    for (size_t i = 0; i < running_.size();) {
      Sequence& seq = *running_[i];
      if (!seq.asked) {
        ++i;
        continue;
      }
      if (seq.recompute) ReplayHistory(seq);
      const Grow grow = ReserveOrPreempt(i);
      if (grow == Grow::kPreempted) continue;  // running_[i] is the next one now
      if (grow == Grow::kCannotFit) {
        Fail(seq, std::make_exception_ptr(
                      Error(ErrorCode::kInvalidArgument,
                            "the KV pool cannot hold this sequence; lower max_tokens or raise "
                            "limits.kv_cache_bytes")));
      }
      ++i;
    }
    UpdatePoolStats();

    std::vector<std::shared_ptr<Sequence>> seqs;
    std::vector<engine::StepPart> parts;
    GatherStep(seqs, parts);
    if (parts.empty()) {
      // Nothing can run until a sequence asks, ends or frees blocks: wait for
      // that (a loop that took the lock again at once would starve them),
      // waking now and then to poll the waiting ones' stop checks.
      const uint64_t seen = changes_;
      work_cv_.wait_for(lock, std::chrono::milliseconds(50),
                        [&] { return stop_ || changes_ != seen; });
      continue;
    }
    lock.unlock();
    RunStep(seqs, parts);
    lock.lock();
  }
  // Shutting down: whoever still waits gets an error rather than a hang.
  StopAsked([](const Sequence&) { return true; }, "scheduler stopped");
}

int64_t BatchScheduler::UpToPromptStop(const Sequence& seq, int64_t n) const {
  // evaluated: the position the next token takes (a cached answer's fed
  // counts from its first generated token).
  const int64_t stop = engine_.PromptStop(seq.engine_seq);
  return stop > seq.evaluated && stop < seq.evaluated + n ? stop - seq.evaluated : n;
}

void BatchScheduler::GatherStep(std::vector<std::shared_ptr<Sequence>>& seqs,
                                std::vector<engine::StepPart>& parts) {
  const auto add = [&](const std::shared_ptr<Sequence>& seq, int64_t n) {
    const auto left = static_cast<int64_t>(seq->pending.size() - seq->fed);
    engine::StepPart part;
    part.sequence = seq->engine_seq;
    part.tokens = std::span<const int32_t>(seq->pending).subspan(seq->fed, n);
    part.prompt_tokens =
        std::clamp<int64_t>(seq->prompt_tokens - static_cast<int64_t>(seq->fed), 0, n);
    part.logits = n == left && !seq->fill;
    if (part.logits && seq->sampling) part.sample = &seq->sample;
    parts.push_back(part);
    seqs.push_back(seq);
  };
  std::vector<StepCandidate> candidates;
  candidates.reserve(running_.size());
  for (const auto& seq : running_) {
    candidates.push_back({seq->asked, static_cast<int64_t>(seq->pending.size() - seq->fed),
                          seq->fill && !fill_awaited_});
  }
  const auto cut = [&](size_t i, int64_t n) {
    const Sequence& seq = *running_[i];
    n = UpToPromptStop(seq, n);
    if (!options_.one_kind_per_part) return n;
    // Prompt tokens up to the prompt's end; a recomputed sequence's
    // generated tokens one per step, as they first ran.
    const int64_t prompt_left = seq.prompt_tokens - static_cast<int64_t>(seq.fed);
    return prompt_left > 0 ? std::min(n, prompt_left) : std::min<int64_t>(n, 1);
  };
  std::function<int64_t(int64_t)> prompt_beside;
  if (options_.step_time_target.count() > 0) {
    prompt_beside = [this](int64_t decode_tokens) {
      const double target = std::chrono::duration<double>(options_.step_time_target).count();
      // Unmeasured yet: a short chunk, which measures the price.
      const int64_t fit =
          step_cost_.PromptTokensWithin(target, decode_tokens).value_or(options_.min_prompt_chunk);
      return std::max(fit, options_.min_prompt_chunk);
    };
  }
  for (const StepTake& take : ChooseMixedStep(candidates, options_.max_batched_tokens,
                                              options_.prompt_batch_tokens, cut, prompt_beside)) {
    add(running_[take.index], take.tokens);
  }
}

void BatchScheduler::StopAsked(const std::function<bool(const Sequence&)>& stop, const char* why) {
  const auto in = [&](auto& list) {
    for (const auto& seq : list) {
      if (seq->asked && stop(*seq))
        Fail(*seq, std::make_exception_ptr(Error(ErrorCode::kStopped, why)));
    }
  };
  in(running_);
  in(waiting_);
}

void BatchScheduler::Fail(Sequence& seq, std::exception_ptr error) {
  seq.asked = false;
  seq.ready = true;
  seq.error = std::move(error);
  seq.cv.notify_all();
}

void BatchScheduler::RunStep(std::vector<std::shared_ptr<Sequence>>& seqs,
                             std::vector<engine::StepPart>& parts) {
  // Called without mu_: only this thread touches the engine and a sequence's
  // pending tokens while it is asked.
  const auto finish = [&](size_t i, std::span<const float> row, int32_t token,
                          std::exception_ptr error) {
    Sequence& seq = *seqs[i];
    const auto n = static_cast<int64_t>(parts[i].tokens.size());
    std::lock_guard lock(mu_);
    if (error) {
      Fail(seq, error);
      if (seq.fill) closing_.push_back(seqs[i]);
      return;
    }
    seq.history.insert(seq.history.end(), parts[i].tokens.begin(), parts[i].tokens.end());
    seq.history_prompt += parts[i].prompt_tokens;
    seq.fed += static_cast<size_t>(n);
    seq.evaluated += n;
    seq.length = std::max(seq.length.load(), seq.evaluated);
    if (seq.fill && seq.fed == seq.pending.size()) {  // the answer's blocks are cached
      seq.asked = false;
      closing_.push_back(seqs[i]);
      ++changes_;
      ++stats_.answers_cached;
      return;
    }
    if (!parts[i].logits) return;  // more prompt chunks to come
    seq.logits.assign(row.begin(), row.end());
    seq.token = token;
    seq.asked = false;
    seq.ready = true;
    seq.cv.notify_all();
  };
  const auto vocab = static_cast<size_t>(vocab_);
  uint64_t tokens = 0;
  int64_t prompt_tokens = 0;
  for (const auto& p : parts) {
    tokens += p.tokens.size();
    prompt_tokens += p.prompt_tokens;
  }
  double step_seconds = 0;  // 0: not measured (the step failed)
  // A sequence alone in its step may stop inside it (between the plan's
  // instructions: a long prompt chunk is cancelled within milliseconds);
  // a shared step runs whole, and its sequences stop before their next one.
  std::function<bool()> stop_check;
  if (parts.size() == 1) {
    std::lock_guard lock(mu_);
    stop_check = seqs[0]->stop_check;
  }
  engine_.set_should_stop(std::move(stop_check));
  try {
    const auto start = std::chrono::steady_clock::now();
    const std::span<const float> logits = engine_.Step(parts);
    step_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::span<const int32_t> sampled = engine_.step_sampled();
    size_t row = 0, pick = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (!parts[i].logits) {
        finish(i, {}, -1, nullptr);
      } else if (parts[i].sample != nullptr) {
        finish(i, {}, sampled[pick++], nullptr);
      } else {
        finish(i, logits.subspan(row++ * vocab, vocab), -1, nullptr);
      }
    }
  } catch (const std::exception& e) {
    step_seconds = 0;
    engine_.set_should_stop({});
    if (parts.size() == 1) {
      finish(0, {}, -1, std::current_exception());
    } else {
      LogWarn("scheduler", "a step failed; its sequences run one by one",
              {{"error", e.what()}, {"sequences", std::to_string(parts.size())}});
      // The failed step may have written KV at these positions; running a
      // part again writes the same positions anew.
      for (size_t i = 0; i < parts.size(); ++i) {
        try {
          const std::span<const float> logits = engine_.Step({&parts[i], 1});
          const bool picked = parts[i].logits && parts[i].sample != nullptr;
          finish(i, parts[i].logits && !picked ? logits.first(vocab) : std::span<const float>{},
                 picked ? engine_.step_sampled()[0] : -1, nullptr);
        } catch (const std::exception&) {
          finish(i, {}, -1, std::current_exception());
        }
      }
    }
  }
  engine_.set_should_stop({});
  std::lock_guard lock(mu_);
  step_cost_.Observe(prompt_tokens, static_cast<int64_t>(tokens) - prompt_tokens, step_seconds);
  if (step_seconds > 0) stats_.step_seconds_hist.Observe(step_seconds);
  ++stats_.steps;
  stats_.step_tokens += tokens;
  stats_.step_sequences += parts.size();
  stats_.step_tokens_hist.Observe(static_cast<double>(tokens));
  stats_.step_sequences_hist.Observe(static_cast<double>(parts.size()));
  stats_.preemptions = preemptions_;
}

}  // namespace orcd
