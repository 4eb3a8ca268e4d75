// Prefix caching in the engine: mapping cached blocks onto a new sequence
// (and, for sliding-window layers, the windows copied at their end:
// ring_snapshots.h), registering a sequence's full prompt blocks after each
// step, and the pool's counters.
#include <algorithm>
#include <utility>

#include "host/common/status.h"
#include "host/engine/engine.h"

namespace orcd::engine {

int64_t Engine::MatchPrefix(int sequence, std::span<const int32_t> prompt, uint64_t salt) {
  Sequence& seq = sequences_.at(static_cast<size_t>(sequence));
  if (!seq.open || seq.length != 0 || !seq.blocks.empty()) {
    throw Error(ErrorCode::kInvalidArgument, "MatchPrefix needs a sequence just opened");
  }
  seq.salt = salt;
  if (!prefix_cache_ || prompt.empty()) return 0;
  seq.uncounted_query = prompt.size();
  const int64_t bt = blocks_->block_tokens();
  const auto full = static_cast<int64_t>(prompt.size() - 1) / bt;  // the last token is evaluated
  for (int64_t k = 0; k < full; ++k) {
    const int32_t parent = k == 0 ? -1 : seq.blocks.back();
    const int32_t block = blocks_->Acquire(
        parent, prompt.subspan(static_cast<size_t>(k * bt), static_cast<size_t>(bt)), salt);
    if (block < 0) break;
    seq.blocks.push_back(block);
  }
  if (snapshots_) MapWindows(sequence, seq);
  seq.registered = static_cast<int64_t>(seq.blocks.size());
  seq.length = seq.registered * bt;
  // Where the prompt leaves the cached chain inside a block, that block's
  // leading rows (windows aside: their rings hold no such rows).
  if (!snapshots_) seq.length += CopyLeadingRows(seq, prompt);
  seq.prompt.assign(prompt.begin(), prompt.begin() + seq.length);
  seq.uncounted_hit = static_cast<uint64_t>(seq.length);
  return seq.length;
}

int64_t Engine::CopyLeadingRows(Sequence& seq, std::span<const int32_t> prompt) {
  const int64_t bt = blocks_->block_tokens();
  const int64_t at = seq.registered * bt;
  // The last prompt token is evaluated (its logits are the first sample's).
  const int64_t room = std::min<int64_t>(bt, static_cast<int64_t>(prompt.size()) - 1 - at);
  if (room <= 0) return 0;
  int64_t rows = 0;
  const int32_t source = blocks_->AcquireLongestChild(
      seq.blocks.empty() ? -1 : seq.blocks.back(),
      prompt.subspan(static_cast<size_t>(at), static_cast<size_t>(room)), seq.salt, &rows);
  if (source < 0) return 0;
  // A block of its own (a partial block is never shared: the sequence goes
  // on writing into it); the source is held meanwhile, so never the one
  // taken.
  const int32_t block = blocks_->Take();
  if (block >= 0) {
    kv_->CopyBlockRows(source, block, rows);
    seq.blocks.push_back(block);
  }
  blocks_->Release(source);
  return block >= 0 ? rows : 0;
}

bool Engine::RewindToPrompt(int sequence, int64_t prompt_length) {
  Sequence& seq = sequences_.at(static_cast<size_t>(sequence));
  if (!prefix_cache_ || !seq.open || static_cast<int64_t>(seq.prompt.size()) != prompt_length ||
      seq.length < prompt_length) {
    return false;
  }
  seq.length = prompt_length;
  seq.generated = false;
  return true;
}

void Engine::RegisterPromptBlocks(Sequence& seq, const StepPart& part, int64_t old_length) {
  if (!prefix_cache_ || seq.generated) return;
  // Positions rewound (the single-sequence API) break the correspondence of
  // `prompt` with positions: this sequence registers nothing more.
  if (static_cast<int64_t>(seq.prompt.size()) != old_length) {
    seq.generated = true;
    return;
  }
  const auto n = static_cast<int64_t>(part.tokens.size());
  const int64_t prompt = std::clamp<int64_t>(part.prompt_tokens, 0, n);
  seq.prompt.insert(seq.prompt.end(), part.tokens.begin(), part.tokens.begin() + prompt);
  if (prompt < n) seq.generated = true;  // blocks from here on hold other arithmetic
  const int64_t bt = blocks_->block_tokens();
  const auto full = static_cast<int64_t>(seq.prompt.size()) / bt;
  const std::span<const int32_t> tokens(seq.prompt);
  bool last_cached = false;  // the last block registered now is the cached one
  const int64_t before = seq.registered;
  for (; seq.registered < full; ++seq.registered) {
    const auto k = static_cast<size_t>(seq.registered);
    const int32_t parent = k == 0 ? -1 : seq.blocks[k - 1];
    const std::span<const int32_t> block_tokens =
        tokens.subspan(k * static_cast<size_t>(bt), static_cast<size_t>(bt));
    last_cached = blocks_->Register(seq.blocks[k], parent, block_tokens, seq.salt);
    if (!last_cached) {
      // An equal block is cached (computed by another sequence, the same
      // bits): the sequence holds that one instead, so that its later
      // blocks chain on from the cached prefix.
      const int32_t twin = blocks_->Acquire(parent, block_tokens, seq.salt);
      if (twin >= 0) {
        blocks_->Release(seq.blocks[k]);
        seq.blocks[k] = twin;
        last_cached = true;
      }
    }
  }
  // The windows as they stood at the end of the last block registered, while
  // the rings still hold them.
  if (snapshots_ && seq.registered > before && last_cached &&
      seq.length - seq.registered * bt <= ring_reach_) {
    const int32_t block = seq.blocks[static_cast<size_t>(seq.registered - 1)];
    const int64_t slot = snapshots_->Claim(block, blocks_->generation(block));
    if (slot >= 0) kv_->CopyRing(&seq - sequences_.data(), slot);
  }
}

void Engine::MapWindows(int sequence, Sequence& seq) {
  size_t keep = seq.blocks.size();
  int64_t slot = -1;
  for (; keep > 0; --keep) {
    const int32_t block = seq.blocks[keep - 1];
    slot = snapshots_->Find(block, blocks_->generation(block));
    if (slot >= 0) break;
  }
  // Blocks found past the deepest copy are given back (no windows there);
  // a prompt step that ends where they end leaves a copy for the next
  // sequence beginning the same way (PromptStop).
  if (seq.blocks.size() > keep)
    seq.window_stop = static_cast<int64_t>(seq.blocks.size()) * blocks_->block_tokens();
  while (seq.blocks.size() > keep) {
    blocks_->Release(seq.blocks.back());
    seq.blocks.pop_back();
  }
  if (slot >= 0) kv_->CopyRing(slot, sequence);
}

int64_t Engine::PromptStop(int sequence) const {
  const Sequence& seq = sequences_.at(static_cast<size_t>(sequence));
  return seq.window_stop > seq.length ? seq.window_stop : 0;
}

KvPoolInfo Engine::kv_pool() const {
  KvPoolInfo info;
  info.max_sequences = static_cast<int>(sequences_.size());
  info.block_tokens = kv_->layout().block_tokens;
  info.blocks_total = kv_->layout().blocks;
  info.blocks_free = blocks_->available();
  info.prefix_cache = prefix_cache_;
  info.blocks_cached = blocks_->cached();
  info.prefix_query_tokens = prefix_query_tokens_;
  info.prefix_hit_tokens = prefix_hit_tokens_;
  info.evictions = blocks_->evictions();
  return info;
}

}  // namespace orcd::engine
