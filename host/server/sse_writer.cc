#include "host/server/sse_writer.h"

#include <exception>

namespace orcd {

bool SseWriter::Send(const std::string& event, const std::string& json_data) {
  if (!ok_) return false;
  try {
    out_ << "event: " << event << "\ndata: " << json_data << "\n\n";
    out_.flush();
    ok_ = out_.good();
  } catch (const std::exception&) {
    ok_ = false;  // connection reset / broken pipe: the client is gone
  }
  return ok_;
}

}  // namespace orcd
