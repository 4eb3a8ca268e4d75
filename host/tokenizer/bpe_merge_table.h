// BPE merges by rank: (left id, right id) -> (rank, merged id). Applying them
// repeatedly merges the adjacent pair of lowest rank, the leftmost on ties,
// until no pair has a merge (HF tokenizers' and tiktoken's order).
#ifndef ORCD_HOST_TOKENIZER_BPE_MERGE_TABLE_H_
#define ORCD_HOST_TOKENIZER_BPE_MERGE_TABLE_H_

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "host/tokenizer/vocabulary.h"

namespace orcd {

class BpeMergeTable {
 public:
  // Adds merge number `rank` of "left right" (token texts). Returns false,
  // adding nothing, when left, right or their concatenation is not a token.
  // A pair already present keeps its earlier (lower) rank.
  bool Add(const Vocabulary& vocab, std::string_view left, std::string_view right, uint32_t rank);

  size_t size() const { return merges_.size(); }

  // Merges `symbols` (token ids) in place.
  void Apply(std::vector<TokenId>& symbols) const;

 private:
  struct Merge {
    uint32_t rank;
    TokenId result;
  };
  static uint64_t Key(TokenId left, TokenId right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
           static_cast<uint32_t>(right);
  }
  const Merge* Find(TokenId left, TokenId right) const;

  std::unordered_map<uint64_t, Merge> merges_;
};

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_BPE_MERGE_TABLE_H_
