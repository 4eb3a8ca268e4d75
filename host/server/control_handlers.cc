#include "host/server/control_handlers.h"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "host/common/logger.h"
#include "host/server/http_util.h"

namespace orcd {
namespace {

using Poco::Net::HTTPResponse;

std::string Str(const std::string& s) { return "\"" + JsonEscape(s) + "\""; }

}  // namespace

std::string HealthJson(const WorkerState& state) {
  const auto uptime = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::steady_clock::now() - state.started)
                          .count();
  // Before the model is published there are no facts to report yet.
  const bool loaded = state.model_loaded();
  const bool resident = loaded && state.service->Resident();
  // `status` is the spec's /health value (M0-W-1320, WORK-3041): healthy
  // while the worker serves (ready or busy), else unhealthy; `state` is the
  // lifecycle (WORK-3015), which says why.
  const std::string lifecycle(state.StatusName());  // "failed" once !resident
  const bool healthy = lifecycle == "ready" || lifecycle == "busy";
  std::string j = "{\"status\":" + Str(healthy ? "healthy" : "unhealthy");
  j += ",\"state\":" + Str(lifecycle);
  j += std::string(",\"healthy\":") + (healthy ? "true" : "false");
  j += ",\"worker_id\":" + Str(state.config.worker_id);
  j += ",\"uptime_seconds\":" + std::to_string(uptime);
  if (!loaded) {
    j += ",\"model_ref\":" + Str(state.config.ModelRef());
    j += ",\"load_progress_percent\":" + std::to_string(state.load_percent.load());
    return j + "}";
  }
  const ModelFacts& f = state.service->facts();
  j += ",\"model\":" + Str(f.model_name) + ",\"model_ref\":" + Str(state.config.ModelRef());
  j += ",\"load_progress_percent\":100";
  j += ",\"architecture\":" + Str(f.architecture);
  j += std::string(",\"resident\":") + (resident ? "true" : "false");
  j += ",\"quant_kind\":" + Str(f.quant_kind);
  const std::string vram = std::to_string(state.service->VramBytesUsed());
  j += ",\"vram_bytes_used\":" + vram + ",\"vram_bytes\":" + vram;  // M0-W-1320, WORK-3041
  j += ",\"tokenizer_kind\":" + Str(f.tokenizer_kind);
  j += ",\"vocab_size\":" + std::to_string(f.vocab_size);
  j += ",\"context_length\":" + (f.context_length > 0 ? std::to_string(f.context_length) : "null");
  // The tokenizer's metadata (M0-W-1361); null where the model has none.
  const auto id_or_null = [](int64_t v) { return v >= 0 ? std::to_string(v) : "null"; };
  j += ",\"bos_id\":" + id_or_null(f.bos_id) + ",\"eos_id\":" + id_or_null(f.eos_id);
  j += ",\"model_max_context\":" +
       (f.model_max_context > 0 ? std::to_string(f.model_max_context) : "null");
  if (f.expert_count > 0) {
    j += ",\"expert_count\":" + std::to_string(f.expert_count) +
         ",\"expert_used_count\":" + std::to_string(f.expert_used_count);
  }
  j += ",\"device\":" + Str(f.device);
  if (f.sm > 0) {
    j += ",\"sm\":" + std::to_string(f.sm) +
         ",\"cuda_runtime_version\":" + Str(f.cuda_runtime_version);
  }
  const ServingStats serving = state.service->serving();
  j += std::string(",\"busy\":") + (state.busy() ? "true" : "false");
  j += ",\"slots_total\":" + std::to_string(state.config.slots);
  j += ",\"slots_busy\":" + std::to_string(state.slots_busy());
  j += ",\"queue_depth\":" + std::to_string(state.jobs_waiting());
  j += ",\"queue_capacity\":" + std::to_string(state.config.queue_depth);
  j += ",\"kv_blocks_total\":" + std::to_string(serving.kv_blocks_total);
  j += ",\"kv_blocks_free\":" + std::to_string(serving.kv_blocks_free);
  j += std::string(",\"prefix_cache\":") + (serving.prefix_cache ? "true" : "false");
  j += ",\"kv_blocks_cached\":" + std::to_string(serving.kv_blocks_cached);
  j += std::string(",\"shutting_down\":") + (state.shutting_down ? "true" : "false") + "}";
  return j;
}

InlineResponse HealthResponse(const WorkerState& state) {
  InlineResponse r;
  r.body = HealthJson(state);
  return r;
}

InlineResponse LiveResponse() {
  InlineResponse r;
  r.body = "{\"status\":\"live\"}";
  return r;
}

// Ready = the model is loaded, the pool manager acknowledged it and the
// worker is not draining: states "ready" and "busy" (a busy worker answers
// /execute with WORKER_BUSY, but it is not broken). The body has /health's
// status and names the state.
InlineResponse ReadyResponse(const WorkerState& state) {
  const std::string lifecycle(state.StatusName());
  const bool ready = state.accepting() && (lifecycle == "ready" || lifecycle == "busy");
  InlineResponse r;
  r.status = ready ? 200 : 503;
  r.body =
      "{\"status\":" + Str(ready ? "healthy" : "unhealthy") + ",\"state\":" + Str(lifecycle) + "}";
  if (!ready) r.fields.emplace_back("Retry-After", "1");
  return r;
}

InlineResponse MetricsResponse(WorkerState& state) {
  InlineResponse r;
  r.content_type = "text/plain; version=0.0.4";
  r.body = state.metrics.Render();
  if (state.model_loaded()) r.body += Metrics::RenderServing(state.service->serving());
  return r;
}

InlineResponse CancelResponse(WorkerState& state, const std::string& body) {
  std::string job_id;
  try {
    auto obj = Poco::JSON::Parser().parse(body).extract<Poco::JSON::Object::Ptr>();
    if (obj->has("job_id") && obj->get("job_id").isString())
      job_id = obj->getValue<std::string>("job_id");
  } catch (const Poco::Exception&) {
  } catch (const std::exception&) {
  }
  if (job_id.empty() || job_id.size() > kMaxJobIdBytes) {
    InlineResponse r = JsonError(
        400, "INVALID_REQUEST",
        "job_id must be a string of 1 to " + std::to_string(kMaxJobIdBytes) + " bytes", false);
    r.body.insert(r.body.size() - 1, ",\"field\":\"job_id\"");
    return r;
  }
  const char* status = "cancel_requested";
  switch (state.jobs.Cancel(job_id)) {
    case JobSlots::CancelOutcome::kRunning:
      break;
    case JobSlots::CancelOutcome::kAlreadyEnded:
      status = "already_ended";  // nothing to stop; a later job reusing the id runs
      break;
    case JobSlots::CancelOutcome::kRemembered:
      break;  // cancels the job if it starts within 10 s
  }
  LogInfo("cancel_requested", "cancel requested", {{"job_id", job_id}, {"status", status}});
  InlineResponse r;
  r.status = 202;
  r.body = "{\"job_id\":\"" + JsonEscape(job_id) + "\",\"status\":\"" + status + "\"}";
  return r;
}

InlineResponse ShutdownResponse(WorkerState& state) {
  LogInfo("shutdown", "shutdown requested over HTTP");
  state.RequestShutdown();
  InlineResponse r;
  r.status = 202;
  r.body = "{\"status\":\"shutting_down\"}";
  return r;
}

}  // namespace orcd
