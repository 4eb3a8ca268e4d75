// Small pieces the output parsers share: finding where a JSON value ends in
// text that is still arriving, decoding a JSON string literal, and how much
// of a text's end may be the start of a marker (and must be held back).
#ifndef ORCD_HOST_CHAT_OUTPUT_JSON_SCAN_H_
#define ORCD_HOST_CHAT_OUTPUT_JSON_SCAN_H_

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace orcd {

// Follows one JSON value (after optional leading whitespace) through text
// given in pieces and says where it ends: brackets and strings are tracked,
// nothing else is validated (the value is parsed properly, if at all, once
// complete). A number or literal (true, 12) ends at the first character that
// cannot continue it, or at Finish().
class JsonValueScanner {
 public:
  // Consumes text up to the end of the value; returns how many characters
  // of `text` belong to it (all of them while it is still open).
  size_t Feed(std::string_view text);
  // The end of the stream: a scalar that was being read is complete.
  void Finish();
  bool started() const { return started_; }
  bool done() const { return done_; }
  // The first non-space character cannot begin a JSON value, or a closing
  // bracket came without an opening one.
  bool failed() const { return failed_; }
  // The value's first character ('{', '[', '"', a digit, ...); 0 before it.
  char first() const { return first_; }

 private:
  bool started_ = false;
  bool done_ = false;
  bool failed_ = false;
  bool scalar_ = false;
  bool in_string_ = false;
  bool escape_ = false;
  int depth_ = 0;
  char first_ = 0;
};

// The text of a complete JSON string literal ("a\"b" -> a"b); nullopt when
// it is not one.
std::optional<std::string> DecodeJsonString(std::string_view literal);

// The length of the longest end of `text` that is the beginning (not the
// whole) of one of `markers`: text that must wait for the next piece.
size_t PartialMarkerLength(std::string_view text, std::initializer_list<std::string_view> markers);

// Leading spaces, tabs and newlines.
std::string_view TrimLeft(std::string_view text);

}  // namespace orcd

#endif  // ORCD_HOST_CHAT_OUTPUT_JSON_SCAN_H_
