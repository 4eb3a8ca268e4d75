// Server-Sent Events on an HTTP response stream. Each event is flushed at
// once; a failed write (the client went away) is remembered, never thrown.
#ifndef ORCD_HOST_SERVER_SSE_WRITER_H_
#define ORCD_HOST_SERVER_SSE_WRITER_H_

#include <ostream>
#include <string>

namespace orcd {

class SseWriter {
 public:
  explicit SseWriter(std::ostream& out) : out_(out) {}
  // Writes "event: <name>\ndata: <json>\n\n"; false once the client is gone.
  bool Send(const std::string& event, const std::string& json_data);
  bool ok() const { return ok_; }

 private:
  std::ostream& out_;
  bool ok_ = true;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_SSE_WRITER_H_
