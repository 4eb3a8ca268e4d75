// Feeds generated text to a chat output parser the ways streaming can cut
// it: whole, one character at a time, and split in two at every position.
// A parser must give the same message every way (streamed deltas add up to
// the non-streamed answer).
#ifndef ORCD_TESTS_CHAT_OUTPUT_PARSER_HARNESS_H_
#define ORCD_TESTS_CHAT_OUTPUT_PARSER_HARNESS_H_

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "host/chat/output/chat_output_parser.h"

namespace orcd {

using ParserFactory = std::function<std::unique_ptr<ChatOutputParser>()>;

inline ChatOutputCollector ParseInPieces(const ParserFactory& make, const std::string& text,
                                         size_t piece) {
  ChatOutputCollector out;
  std::unique_ptr<ChatOutputParser> parser = make();
  for (size_t at = 0; at < text.size(); at += piece) parser->Push(text.substr(at, piece), out);
  parser->Finish(out);
  return out;
}

inline bool SameMessage(const ChatOutputCollector& a, const ChatOutputCollector& b) {
  if (a.content != b.content || a.reasoning != b.reasoning) return false;
  if (a.tool_calls.size() != b.tool_calls.size()) return false;
  for (size_t i = 0; i < a.tool_calls.size(); ++i) {
    if (a.tool_calls[i].name != b.tool_calls[i].name ||
        a.tool_calls[i].arguments != b.tool_calls[i].arguments) {
      return false;
    }
  }
  return true;
}

// The message parsed from `text` whole, after checking that every other
// way of cutting it gives the same.
inline ChatOutputCollector ParseEveryWay(const ParserFactory& make, const std::string& text) {
  const ChatOutputCollector whole = ParseInPieces(make, text, text.size() + 1);
  EXPECT_TRUE(SameMessage(whole, ParseInPieces(make, text, 1))) << "char by char: " << text;
  for (size_t cut = 1; cut < text.size(); ++cut) {
    ChatOutputCollector split;
    std::unique_ptr<ChatOutputParser> parser = make();
    parser->Push(text.substr(0, cut), split);
    parser->Push(text.substr(cut), split);
    parser->Finish(split);
    if (!SameMessage(whole, split)) {
      ADD_FAILURE() << "cut at " << cut << " of: " << text << "\n content '" << split.content
                    << "' vs '" << whole.content << "'";
      break;
    }
  }
  return whole;
}

}  // namespace orcd

#endif  // ORCD_TESTS_CHAT_OUTPUT_PARSER_HARNESS_H_
