#include "host/engine/register_allocator.h"

#include <iterator>

namespace orcd::engine {
namespace {

// First-fit over free column ranges, merged with their neighbours on release.
class RangePool {
 public:
  int64_t Take(int64_t width) {
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < width) continue;
      const int64_t offset = it->first;
      const int64_t rest = it->second - width;
      free_.erase(it);
      if (rest > 0) free_.emplace(offset + width, rest);
      return offset;
    }
    // Grow the arena; a free range touching the end grows with it.
    if (!free_.empty()) {
      auto last = std::prev(free_.end());
      if (last->first + last->second == end_) {
        const int64_t offset = last->first;
        end_ = offset + width;
        free_.erase(last);
        return offset;
      }
    }
    const int64_t offset = end_;
    end_ += width;
    return offset;
  }

  void Give(int64_t offset, int64_t width) {
    auto it = free_.emplace(offset, width).first;
    if (auto next = std::next(it); next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
    }
  }

  int64_t end() const { return end_; }

 private:
  std::map<int64_t, int64_t> free_;  // offset -> width
  int64_t end_ = 0;
};

}  // namespace

RegisterAllocation AllocateRegisters(const std::vector<RegisterUse>& uses,
                                     const std::map<int32_t, int64_t>& widths) {
  std::map<int32_t, size_t> last_use;
  for (size_t i = 0; i < uses.size(); ++i) {
    for (int32_t r : uses[i].reads) last_use[r] = i;
    for (int32_t r : uses[i].writes) {
      if (!last_use.count(r) || last_use[r] < i) last_use[r] = i;
    }
  }
  RegisterAllocation out;
  RangePool pool;
  for (size_t i = 0; i < uses.size(); ++i) {
    for (int32_t r : uses[i].writes) {
      if (out.offset.count(r)) continue;  // rewritten in place: keeps its range
      out.offset[r] = pool.Take(widths.at(r));
      ++out.slot_count;
    }
    std::map<int32_t, bool> released;
    for (const auto* list : {&uses[i].reads, &uses[i].writes}) {
      for (int32_t r : *list) {
        if (last_use.at(r) == i && !released[r]) {
          released[r] = true;
          pool.Give(out.offset.at(r), widths.at(r));
        }
      }
    }
  }
  out.total_width = pool.end();
  return out;
}

}  // namespace orcd::engine
