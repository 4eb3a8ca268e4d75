// Stop strings on generated text: matches across token boundaries, holds back
// text that might be the start of a stop string, and never emits the stop
// text itself.
#ifndef ORCD_HOST_GENERATION_STOP_MATCHER_H_
#define ORCD_HOST_GENERATION_STOP_MATCHER_H_

#include <string>
#include <vector>

namespace orcd {

class StopMatcher {
 public:
  explicit StopMatcher(std::vector<std::string> stops);

  // Adds generated text; returns the text now safe to emit. After a match,
  // stopped() is true and nothing more is emitted.
  std::string Push(const std::string& text);
  // End of generation: releases what was held back (unless stopped).
  std::string Flush();
  bool stopped() const { return stopped_; }
  // The stop string that matched (the first listed of those ending earliest).
  const std::string& matched() const { return matched_; }
  // True while text is held back (it may begin a stop string).
  bool holding() const { return !pending_.empty(); }

 private:
  std::vector<std::string> stops_;
  std::string pending_;  // text held back: a suffix that begins some stop string
  bool stopped_ = false;
  std::string matched_;
};

}  // namespace orcd

#endif  // ORCD_HOST_GENERATION_STOP_MATCHER_H_
