#include "host/app/systemd_notify.h"

#include <systemd/sd-daemon.h>

#include "host/common/logger.h"

namespace orcd {
namespace {

// A status line is one line: systemd reads the message as NEWLINE-separated
// assignments, so a newline in a status would start a bogus one.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

void Notify(const std::string& message) {
  // sd_notify returns 0 without NOTIFY_SOCKET (not run by systemd) and a
  // negative errno when sending fails; the worker serves either way, but a
  // lost READY=1 makes systemd time the unit out, so say why.
  const int result = sd_notify(/*unset_environment=*/0, message.c_str());
  if (result < 0) {
    LogWarn("systemd_notify", "could not notify systemd", {{"errno", std::to_string(-result)}});
  }
}

}  // namespace

void NotifySystemdStatus(const std::string& status) { Notify("STATUS=" + OneLine(status)); }

void NotifySystemdReady(const std::string& status) { Notify("READY=1\nSTATUS=" + OneLine(status)); }

void NotifySystemdStopping(const std::string& status) {
  Notify("STOPPING=1\nSTATUS=" + OneLine(status));
}

}  // namespace orcd
