// The engine on the CUDA backend: the device's VRAM check, weights, KV pool
// and scratch at load, and each step's rows and block tables for the device.
#include <algorithm>
#include <string>
#include <utility>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/engine/cuda/column_tiled_gemm.h"
#include "host/engine/engine.h"

namespace orcd::engine {

void Engine::SetDeviceRows(std::span<const StepSequence> seqs) {
  device_rows_.clear();
  device_tables_.clear();
  for (const StepSequence& ss : seqs) {
    const auto table = static_cast<int32_t>(device_tables_.size());
    device_tables_.insert(device_tables_.end(), ss.kv.blocks, ss.kv.blocks + ss.kv.n_blocks);
    for (int64_t i = 0; i < ss.n_tokens; ++i) {
      device_rows_.push_back({static_cast<int32_t>(ss.pos0 + i), static_cast<int32_t>(ss.first_row),
                              static_cast<int32_t>(ss.pos0), static_cast<int32_t>(ss.n_tokens),
                              static_cast<int32_t>(ss.kv.ring_slot), table});
    }
  }
  cuda_->SetStepRows(device_rows_, device_tables_);
}

Phase Engine::BindDeviceStep(std::span<const StepPart> parts) {
  // Each sequence's rows are of one kind, so that the kind runs' attention
  // launches (the split-KV decode, the tiled prefill) each read and store
  // only their own sequences' keys; a step of generated rows only is a
  // decode step (one graph per number of rows), any other runs eagerly.
  for (const StepPart& part : parts) {
    const auto n = static_cast<int64_t>(part.tokens.size());
    if (part.prompt_tokens < n && (part.prompt_tokens != 0 || n != 1)) {
      throw Error(ErrorCode::kUnsupported,
                  "a CUDA step's part is prompt tokens or one generated token (sequence " +
                      std::to_string(part.sequence) + ": " + std::to_string(n) + " tokens, " +
                      std::to_string(part.prompt_tokens) + " of them prompt)");
    }
  }
  const bool decode =
      std::all_of(step_generated_.begin(), step_generated_.end(), [](uint8_t g) { return g != 0; });
  SetDeviceRows(step_seqs_);
  return decode ? Phase::kDecode : Phase::kPrefill;
}

void Engine::BindLegacyRun(int64_t n) {
  const Sequence& seq = LegacySequence(n);
  StepSequence ss;
  ss.n_tokens = n;
  ss.pos0 = position_;
  ss.kv = {seq.blocks.data(), static_cast<int64_t>(seq.blocks.size()), legacy_sequence_};
  SetDeviceRows({&ss, 1});
}

void Engine::InitCuda(const EngineOptions& options, int64_t context_length) {
  std::shared_ptr<cuda::DeviceRuntime> runtime = options.device_runtime;
  if (!runtime) runtime = cuda::CreateCudaRuntime(options.gpu_index, options.cuda_stream);
  if (options.cuda_gemm_column_tile > 0) {
    runtime = cuda::WithColumnTiledGemm(std::move(runtime), options.cuda_gemm_column_tile);
  }
  cuda_ = std::make_unique<cuda::CudaBackend>(std::move(runtime));
  cuda_->set_q8_activations(options.q8_decode_activations);
  cuda_->set_graphs(options.cuda_graphs);
  cuda_->set_f16_prefill(options.cuda_f16_prefill);
  // Everything the model will hold, checked before the first allocation.
  int64_t headroom = options.vram_headroom_bytes;
  if (headroom < 0)
    headroom = cuda_->runtime().emulated() ? 0 : EngineOptions::kDefaultVramHeadroom;
  const uint64_t model_bytes =
      cuda::CudaBackend::WeightBytes(*weights_) + cuda_->ScratchBytes(bound_);
  KvLayout layout = PoolLayout(options, context_length);
  uint64_t kv_bytes = PoolBytes(layout, context_length, options.kv_type);
  const int64_t per_sequence = (context_length + layout.block_tokens - 1) / layout.block_tokens;
  if (options.kv_pool_bytes == 0 && options.max_sequences > 1) {
    // The default pool (every sequence at the context length) shrinks to
    // what the free VRAM holds beside the model, down to one sequence's
    // context: sequences then share the pool as they grow.
    const uint64_t free = cuda_->runtime().MemoryInfo().free_bytes;
    const uint64_t room = free > model_bytes + static_cast<uint64_t>(headroom)
                              ? free - model_bytes - static_cast<uint64_t>(headroom)
                              : 0;
    KvLayout one_context = layout;  // every sequence's ring, one sequence's blocks
    one_context.blocks = std::min(layout.blocks, per_sequence);
    const uint64_t least = PoolBytes(one_context, context_length, options.kv_type);
    if (kv_bytes > room && room >= least) {
      EngineOptions fitted = options;
      fitted.kv_pool_bytes = room;
      layout = PoolLayout(fitted, context_length);
      kv_bytes = PoolBytes(layout, context_length, options.kv_type);
      LogInfo("kv_pool", "the KV pool is what the free device memory holds beside the model",
              {{"blocks", std::to_string(layout.blocks)},
               {"block_tokens", std::to_string(layout.block_tokens)},
               {"sequences", std::to_string(options.max_sequences)},
               {"bytes", std::to_string(kv_bytes)}});
    }
  }
  cuda_->CheckFits(model_bytes + kv_bytes, static_cast<uint64_t>(headroom));
  cuda_->UploadWeights(*weights_, options.weight_chunk_bytes, options.load_progress);
  InitKvPool(options, context_length, layout, cuda_.get());
  // A step's tables: every sequence's blocks at the context length.
  cuda_->Prepare(bound_, context_length, per_sequence * options.max_sequences);
  executor_ = std::make_unique<Executor>(bound_, 1, 0, cuda_.get());
}

}  // namespace orcd::engine
