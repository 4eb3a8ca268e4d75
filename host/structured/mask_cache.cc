#include "host/structured/mask_cache.h"

#include <algorithm>

namespace orcd::structured {

std::shared_ptr<const MaskBits> MaskCache::Find(const std::vector<uint32_t>& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = bits_.find(key);
  return it == bits_.end() ? nullptr : it->second;
}

void MaskCache::Insert(const std::vector<uint32_t>& key, std::shared_ptr<const MaskBits> bits) {
  const size_t bytes = bits->size() * sizeof(uint64_t) + key.size() * sizeof(uint32_t);
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes_ + bytes > max_bytes_) return;
  if (bits_.emplace(key, std::move(bits)).second) bytes_ += bytes;
}

size_t MaskCache::states() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bits_.size();
}

std::shared_ptr<MaskCache> MaskCaches::For(const std::shared_ptr<const Grammar>& grammar) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = std::find_if(entries_.begin(), entries_.end(),
                               [&](const Entry& e) { return e.grammar == grammar; });
  if (it != entries_.end()) {
    entries_.splice(entries_.begin(), entries_, it);
    return entries_.front().cache;
  }
  entries_.push_front({grammar, std::make_shared<MaskCache>(max_bytes_per_grammar_)});
  if (entries_.size() > max_grammars_) entries_.pop_back();
  return entries_.front().cache;
}

}  // namespace orcd::structured
