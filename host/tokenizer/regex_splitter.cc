#include "host/tokenizer/regex_splitter.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "host/common/status.h"
#include "host/tokenizer/utf8.h"

namespace orcd {
namespace {

std::string Pcre2Message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof buffer);
  return reinterpret_cast<const char*>(buffer);
}

// Per-thread match state shared by all patterns: match data for one match and
// a JIT stack large enough for long runs of one character class.
struct MatchScratch {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  pcre2_jit_stack* jit_stack = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr);

  MatchScratch() { pcre2_jit_stack_assign(context, nullptr, jit_stack); }
  ~MatchScratch() {
    pcre2_jit_stack_free(jit_stack);
    pcre2_match_context_free(context);
    pcre2_match_data_free(data);
  }
  MatchScratch(const MatchScratch&) = delete;
  MatchScratch& operator=(const MatchScratch&) = delete;
};

MatchScratch& Scratch() {
  thread_local MatchScratch scratch;
  return scratch;
}

}  // namespace

struct RegexSplitter::Compiled {
  pcre2_code* code = nullptr;
  ~Compiled() { pcre2_code_free(code); }
};

RegexSplitter::RegexSplitter(const std::vector<std::string>& patterns) : patterns_(patterns) {
  for (const std::string& pattern : patterns_) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    // MATCH_INVALID_UTF: text is not validated first; bad bytes just never match.
    pcre2_code* code =
        pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                      PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error, &offset, nullptr);
    if (code == nullptr) {
      throw Error(ErrorCode::kInvalidArgument, "pre-tokenizer regex does not compile at offset " +
                                                   std::to_string(offset) + " (" +
                                                   Pcre2Message(error) + "): " + pattern);
    }
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // failure is fine: the interpreter runs it
    compiled_.push_back(std::make_unique<Compiled>());
    compiled_.back()->code = code;
  }
}

RegexSplitter::~RegexSplitter() = default;
RegexSplitter::RegexSplitter(RegexSplitter&&) noexcept = default;
RegexSplitter& RegexSplitter::operator=(RegexSplitter&&) noexcept = default;

void RegexSplitter::Split(std::string_view text, std::vector<std::string_view>& pieces) const {
  if (compiled_.empty()) {
    if (!text.empty()) pieces.push_back(text);
    return;
  }
  const size_t first = pieces.size();
  SplitWith(*compiled_[0], text, pieces);
  for (size_t r = 1; r < compiled_.size(); ++r) {
    std::vector<std::string_view> previous(pieces.begin() + static_cast<ptrdiff_t>(first),
                                           pieces.end());
    pieces.resize(first);
    for (const std::string_view piece : previous) SplitWith(*compiled_[r], piece, pieces);
  }
}

void RegexSplitter::SplitWith(const Compiled& regex, std::string_view text,
                              std::vector<std::string_view>& pieces) const {
  MatchScratch& scratch = Scratch();
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t gap_start = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const int rc =
        pcre2_match(regex.code, subject, text.size(), pos, 0, scratch.data, scratch.context);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      throw Error(ErrorCode::kInternal, "pre-tokenizer regex failed: " + Pcre2Message(rc));
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(scratch.data);
    const size_t begin = ovector[0];
    const size_t end = ovector[1];
    if (end == begin) {  // an empty match cuts nothing: step over one character
      if (begin >= text.size()) break;
      pos = begin + ScanUtf8(text, begin).length;
      continue;
    }
    if (begin > gap_start) pieces.push_back(text.substr(gap_start, begin - gap_start));
    pieces.push_back(text.substr(begin, end - begin));
    gap_start = pos = end;
  }
  if (text.size() > gap_start) pieces.push_back(text.substr(gap_start));
}

}  // namespace orcd
