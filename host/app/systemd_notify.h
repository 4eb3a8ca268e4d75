// Start-up and shutdown reported to systemd for `Type=notify` units
// (packaging/orcd.service): READY=1 once the model is loaded and the worker
// accepts jobs, so that `systemctl start` returns (and units ordered after
// orcd start) only then; STOPPING=1 when it begins to drain; STATUS= lines for
// `systemctl status`. Outside systemd (no NOTIFY_SOCKET) every call does
// nothing.
#ifndef ORCD_HOST_APP_SYSTEMD_NOTIFY_H_
#define ORCD_HOST_APP_SYSTEMD_NOTIFY_H_

#include <string>

namespace orcd {

// STATUS=<status>: a one-line state shown by `systemctl status`.
void NotifySystemdStatus(const std::string& status);
// READY=1 with STATUS=<status>.
void NotifySystemdReady(const std::string& status);
// STOPPING=1 with STATUS=<status>.
void NotifySystemdStopping(const std::string& status);

}  // namespace orcd

#endif  // ORCD_HOST_APP_SYSTEMD_NOTIFY_H_
