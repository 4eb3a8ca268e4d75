#include "host/tokenizer/bpe_merge_table.h"

#include <algorithm>
#include <string>

#include "host/tokenizer/thread_scratch.h"

namespace orcd {

bool BpeMergeTable::Add(const Vocabulary& vocab, std::string_view left, std::string_view right,
                        uint32_t rank) {
  const TokenId left_id = vocab.Find(left);
  const TokenId right_id = vocab.Find(right);
  if (left_id == kNoToken || right_id == kNoToken) return false;
  std::string merged;
  merged.reserve(left.size() + right.size());
  merged.append(left).append(right);
  const TokenId result = vocab.Find(merged);
  if (result == kNoToken) return false;
  merges_.try_emplace(Key(left_id, right_id), Merge{rank, result});
  return true;
}

const BpeMergeTable::Merge* BpeMergeTable::Find(TokenId left, TokenId right) const {
  const auto it = merges_.find(Key(left, right));
  return it == merges_.end() ? nullptr : &it->second;
}

void BpeMergeTable::Apply(std::vector<TokenId>& symbols) const {
  if (symbols.size() < 2) return;
  // A doubly linked list of symbols and a min-heap of candidate merges. A
  // candidate goes stale when either side has merged since (its ids no longer
  // match); stale ones are skipped when popped. O(n log n) even for long runs.
  struct Node {
    TokenId id;
    int prev;
    int next;
  };
  struct Candidate {
    uint32_t rank;
    int left;
    TokenId left_id;
    TokenId right_id;
    TokenId result;
  };
  thread_local std::vector<Node> nodes;
  thread_local std::vector<Candidate> heap;
  const int n = static_cast<int>(symbols.size());
  nodes.resize(symbols.size());
  for (int i = 0; i < n; ++i) nodes[i] = {symbols[i], i - 1, i + 1 < n ? i + 1 : -1};

  const auto later = [](const Candidate& a, const Candidate& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.left > b.left;  // lowest rank, then leftmost
  };
  const auto consider = [&](int left) {
    const int right = nodes[left].next;
    if (right < 0) return;
    const Merge* m = Find(nodes[left].id, nodes[right].id);
    if (m != nullptr) heap.push_back({m->rank, left, nodes[left].id, nodes[right].id, m->result});
  };
  heap.clear();
  for (int i = 0; i + 1 < n; ++i) consider(i);
  std::make_heap(heap.begin(), heap.end(), later);

  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const Candidate c = heap.back();
    heap.pop_back();
    Node& left = nodes[c.left];
    if (left.id != c.left_id || left.next < 0 || nodes[left.next].id != c.right_id) continue;
    Node& right = nodes[left.next];
    left.id = c.result;
    right.id = kNoToken;
    left.next = right.next;
    if (right.next >= 0) nodes[right.next].prev = c.left;
    for (const int l : {left.prev, c.left}) {
      if (l < 0) continue;
      const size_t before = heap.size();
      consider(l);
      if (heap.size() > before) std::push_heap(heap.begin(), heap.end(), later);
    }
  }
  symbols.clear();
  for (int i = 0; i >= 0; i = nodes[i].next) symbols.push_back(nodes[i].id);
  ReleaseIfLarge(nodes);
  ReleaseIfLarge(heap);
}

}  // namespace orcd
