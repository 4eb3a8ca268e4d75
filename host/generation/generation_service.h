// The real InferenceService: a model loaded through the plugins, run by the
// engine, with the model's tokenizer, the sampler, stop strings and the
// UTF-8-safe detokenizer.
#ifndef ORCD_HOST_GENERATION_GENERATION_SERVICE_H_
#define ORCD_HOST_GENERATION_GENERATION_SERVICE_H_

#include <functional>
#include <memory>

#include "host/device/device_context.h"
#include "host/generation/generation_options.h"
#include "host/generation/inference_service.h"
#include "host/plugins/plugin_registry.h"

namespace orcd {

using LoadProgress = std::function<void(int percent)>;

// Loads options.model_path. Throws orcd::Error (kModelInvalid, kUnsupported,
// kOutOfMemory with required vs available bytes, kDevice).
std::unique_ptr<InferenceService> CreateGenerationService(const GenerationOptions& config,
                                                          const PluginRegistry& registry,
                                                          DeviceContext& device,
                                                          const LoadProgress& progress);

}  // namespace orcd

#endif  // ORCD_HOST_GENERATION_GENERATION_SERVICE_H_
