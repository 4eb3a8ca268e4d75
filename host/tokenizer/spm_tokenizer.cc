#include "host/tokenizer/spm_tokenizer.h"

#include <cstdio>
#include <queue>
#include <string>

#include "host/tokenizer/utf8.h"

namespace orcd {
namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581 '▁'

// A run of the text: after merging, each live symbol becomes one token.
struct Symbol {
  size_t offset;
  size_t length;  // 0 once merged into its left neighbour
  int prev;
  int next;
};

struct Bigram {
  float score;
  int left;
  int right;
  size_t length;  // left + right when queued: stale when either has changed
};

struct BigramOrder {
  bool operator()(const Bigram& a, const Bigram& b) const {
    return a.score < b.score ||
           (a.score == b.score && a.left > b.left);  // top: best score, leftmost
  }
};

}  // namespace

SpmTokenizer::SpmTokenizer(Vocabulary vocab, bool add_space_prefix)
    : VocabTokenizer(std::move(vocab)), add_space_prefix_(add_space_prefix) {
  for (unsigned b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    const TokenId id = this->vocab().Find(name);
    byte_tokens_[b] = id != kNoToken ? id : this->vocab().special_ids().unk;
  }
}

TokenId SpmTokenizer::FindMergeable(std::string_view text) const {
  const TokenId id = vocab().Find(text);
  if (id == kNoToken) return kNoToken;
  const TokenType type = vocab().type(id);
  return type == TokenType::kNormal || type == TokenType::kUserDefined ? id : kNoToken;
}

void SpmTokenizer::AppendBytes(std::string_view text, std::vector<TokenId>& out) const {
  for (const char c : text) {
    const TokenId id = byte_tokens_[static_cast<unsigned char>(c)];
    if (id != kNoToken) out.push_back(id);
  }
}

void SpmTokenizer::EncodeText(std::string_view text, bool starts_segment,
                              std::vector<TokenId>& out) const {
  std::string escaped;
  escaped.reserve(text.size() + 16);
  if (add_space_prefix_ && starts_segment) escaped += kSpace;
  for (const char c : text) {
    if (c == ' ') {
      escaped += kSpace;
    } else {
      escaped += c;
    }
  }

  // One symbol per character (an invalid byte is a character of its own).
  std::vector<Symbol> symbols;
  for (size_t pos = 0; pos < escaped.size();) {
    const size_t length = ScanUtf8(escaped, pos).length;
    const int index = static_cast<int>(symbols.size());
    symbols.push_back({pos, length, index - 1, -1});
    if (index > 0) symbols[index - 1].next = index;
    pos += length;
  }

  std::priority_queue<Bigram, std::vector<Bigram>, BigramOrder> queue;
  const auto consider = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const size_t length = symbols[left].length + symbols[right].length;
    const TokenId id =
        FindMergeable(std::string_view(escaped).substr(symbols[left].offset, length));
    if (id != kNoToken) queue.push({vocab().score(id), left, right, length});
  };
  for (int i = 1; i < static_cast<int>(symbols.size()); ++i) consider(i - 1, i);

  while (!queue.empty()) {
    const Bigram bigram = queue.top();
    queue.pop();
    Symbol& left = symbols[bigram.left];
    Symbol& right = symbols[bigram.right];
    if (left.length == 0 || right.length == 0 || left.length + right.length != bigram.length) {
      continue;  // stale: one side merged since it was queued
    }
    left.length += right.length;
    right.length = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = bigram.left;
    consider(left.prev, bigram.left);
    consider(bigram.left, left.next);
  }

  for (int i = symbols.empty() ? -1 : 0; i >= 0; i = symbols[i].next) {
    const std::string_view piece =
        std::string_view(escaped).substr(symbols[i].offset, symbols[i].length);
    const TokenId id = FindMergeable(piece);
    if (id != kNoToken) {
      out.push_back(id);
    } else {
      AppendBytes(piece, out);
    }
  }
}

void SpmTokenizer::AppendNormalPiece(std::string_view text, std::string& out) const {
  for (size_t pos = 0; pos < text.size();) {
    if (text.substr(pos, kSpace.size()) == kSpace) {
      out += ' ';
      pos += kSpace.size();
    } else {
      out += text[pos++];
    }
  }
}

}  // namespace orcd
