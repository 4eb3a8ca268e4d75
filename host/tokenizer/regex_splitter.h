// Pre-tokenization by regular expressions (PCRE2, UTF + Unicode properties,
// JIT when available): the text is cut into the matches of a pattern and the
// gaps between them (HF's Split with behaviour "Isolated"); each following
// pattern cuts the pieces of the previous one further.
#ifndef ORCD_HOST_TOKENIZER_REGEX_SPLITTER_H_
#define ORCD_HOST_TOKENIZER_REGEX_SPLITTER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace orcd {

class RegexSplitter {
 public:
  // Throws orcd::Error(kInvalidArgument) naming a pattern that does not compile.
  explicit RegexSplitter(const std::vector<std::string>& patterns);
  ~RegexSplitter();
  RegexSplitter(RegexSplitter&&) noexcept;
  RegexSplitter& operator=(RegexSplitter&&) noexcept;

  // Appends the pieces of `text` in order; together they are exactly `text`
  // and none is empty. Invalid UTF-8 never matches: it lands in gap pieces.
  // Thread-safe (matching scratch is per thread).
  void Split(std::string_view text, std::vector<std::string_view>& pieces) const;

  const std::vector<std::string>& patterns() const { return patterns_; }

 private:
  struct Compiled;
  void SplitWith(const Compiled& regex, std::string_view text,
                 std::vector<std::string_view>& pieces) const;

  std::vector<std::string> patterns_;
  std::vector<std::unique_ptr<Compiled>> compiled_;
};

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_REGEX_SPLITTER_H_
