#include "host/generation/stop_matcher.h"

#include <algorithm>

namespace orcd {

StopMatcher::StopMatcher(std::vector<std::string> stops) : stops_(std::move(stops)) {
  stops_.erase(std::remove(stops_.begin(), stops_.end(), std::string()), stops_.end());
}

std::string StopMatcher::Push(const std::string& text) {
  if (stopped_) return "";
  pending_ += text;
  // Earliest complete match wins.
  size_t match = std::string::npos;
  for (const std::string& s : stops_) {
    const size_t at = pending_.find(s);
    if (at < match) {
      match = at;
      matched_ = s;
    }
  }
  if (match != std::string::npos) {
    stopped_ = true;
    std::string out = pending_.substr(0, match);
    pending_.clear();
    return out;
  }
  // Hold back the longest suffix that is a proper prefix of some stop string.
  size_t hold = 0;
  for (const std::string& s : stops_) {
    for (size_t len = std::min(s.size() - 1, pending_.size()); len > hold; --len) {
      if (pending_.compare(pending_.size() - len, len, s, 0, len) == 0) {
        hold = len;
        break;
      }
    }
  }
  std::string out = pending_.substr(0, pending_.size() - hold);
  pending_.erase(0, pending_.size() - hold);
  return out;
}

std::string StopMatcher::Flush() {
  if (stopped_) return "";
  std::string out;
  out.swap(pending_);
  return out;
}

}  // namespace orcd
