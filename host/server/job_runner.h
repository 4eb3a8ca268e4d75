// Runs one job for any endpoint (/execute, /v1/*): deadline (the configured
// timeout, or input.deadline when sooner), generation, metrics and the
// execute_start/execute_end log lines. The caller holds the slot, and frees
// it (JobLease::Release) once its jobs returned, before it writes the
// answer's end: a client that reads the end and sends its next request at
// once must find the slot free (Server.EveryEndpointTakesTheNextJob...).
#ifndef ORCD_HOST_SERVER_JOB_RUNNER_H_
#define ORCD_HOST_SERVER_JOB_RUNNER_H_

#include <Poco/Net/HTTPServerResponse.h>

#include <functional>
#include <optional>
#include <string>

#include "host/server/worker_state.h"

namespace orcd {

// `client_gone` is asked once the generation returns: true turns the stop
// reason into "client_gone" (the observer saw a failed write).
GenerationResult RunJob(WorkerState& state, const std::string& job_id, GenerationInput input,
                        GenerationObserver& observer, const std::function<bool()>& client_gone);

// Before a new job: the worker's refusal (shutting down, residency lost, not
// ready), counted and its Retry-After set on `response`; the caller answers
// in its API's shape. nullopt: jobs are taken.
std::optional<WorkerState::JobRefusal> RefuseNewJob(WorkerState& state,
                                                    Poco::Net::HTTPServerResponse& response);
// No slot or queue place for it: counted, Retry-After: 1 set; the message.
std::string RefuseBusy(WorkerState& state, Poco::Net::HTTPServerResponse& response);

// Lower-case hex SHA-256: what the logs carry instead of a prompt.
std::string Sha256Hex(const std::string& text);

// "completed" for the normal stops, else the stop reason.
std::string JobOutcome(const GenerationResult& result);
bool IsNormalStop(const GenerationResult& result);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_JOB_RUNNER_H_
