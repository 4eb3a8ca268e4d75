// Many sequences on the CUDA backend (Engine::Step over the emulated device):
// a sequence's logits are bit-identical whether it runs alone or beside seven
// others with staggered starts, whatever number of decode rows a step holds
// (each number replayed from its own graph), and after its KV was dropped
// and recomputed (a preemption). Exact equality, no tolerance: decode rows keep
// one token's arithmetic (matvec_q8 dots, split-KV attention, MoE matvecs)
// and attention reads each sequence's own blocks. The same KV pool as the
// CPU's, in device memory. Also built into the GPU tests
// (ORCD_ADAPTER_TEST_ON_GPU): whether batch invariance holds on hardware
// (nvcc's code, the real runtime's copies and graphs) is what the kit reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cuda_engine_under_test.h"
#include "engine_test_support.h"
#include "golden.h"
#include "host/common/status.h"
#include "host/engine/engine.h"
#include "host/sampling/sampler.h"
#include "host/sampling/token_logprobs.h"
#include "step_runs.h"

namespace orcd::testing {
namespace {

constexpr int kSequences = 8;
constexpr int kGenerated = 5;  // greedy tokens after each prompt

// From one token to past the gpt-oss fixture's 16-position window (its ring
// wraps), across block boundaries (8-token blocks below).
std::vector<std::vector<int32_t>> Prompts(int64_t vocab) {
  return RandomPrompts(vocab, 4321, {5, 13, 1, 21, 7, 18, 3, 9});
}

// All at once, a step either one newcomer's prompt or one generated token of
// every decoding sequence (1 to 8 rows as sequences start and finish: each
// number a decode graph). With `preempt`, sequence 3 loses its KV after
// its second generated token and recomputes its prompt (a prompt step), then
// its first generated token in a decode step without asking for its logits,
// and goes on.
std::vector<SeqRun> Together(engine::Engine& e, const std::vector<std::vector<int32_t>>& prompts,
                             bool preempt) {
  struct State {
    int seq = -1;
    std::vector<int32_t> replay;  // generated tokens to evaluate again, logits unasked
    int32_t next = -1;            // the token the next decode step feeds
    bool prompt_done = false, done = false;
  };
  const auto vocab = static_cast<size_t>(e.info().vocab);
  std::vector<State> states(prompts.size());
  std::vector<SeqRun> runs(prompts.size());
  bool preempted = false;
  size_t started = 0;
  for (int step = 0; step < 200; ++step) {
    // Every other step admits the next sequence or re-prefills a preempted one.
    size_t prefill = prompts.size();
    for (size_t i = 0; i < prompts.size(); ++i) {
      if (states[i].seq >= 0 && !states[i].prompt_done && !states[i].done) prefill = i;
    }
    if (prefill == prompts.size() && step % 2 == 0 && started < prompts.size()) {
      prefill = started++;
      State& s = states[prefill];
      s.seq = e.OpenSequence();
      EXPECT_GE(s.seq, 0);
      EXPECT_TRUE(e.Reserve(s.seq, static_cast<int64_t>(prompts[prefill].size()) + kGenerated));
    }
    if (prefill < prompts.size()) {
      State& s = states[prefill];
      const std::vector<int32_t>& prompt = prompts[prefill];
      engine::StepPart part{s.seq, prompt, static_cast<int64_t>(prompt.size())};
      part.logits = s.replay.empty();
      const std::span<const float> logits = e.Step({&part, 1});
      s.prompt_done = true;
      if (s.replay.empty()) {
        AppendGreedy(runs[prefill], logits.first(vocab));
        s.next = runs[prefill].tokens.back();
      }
      continue;
    }
    std::vector<engine::StepPart> parts;
    std::vector<size_t> owners;
    std::vector<int32_t> feed(prompts.size());
    for (size_t i = 0; i < prompts.size(); ++i) {
      State& s = states[i];
      if (s.seq < 0 || s.done || !s.prompt_done) continue;
      const bool replaying = !s.replay.empty();
      feed[i] = replaying ? s.replay.front() : s.next;
      engine::StepPart part{s.seq, {&feed[i], 1}, 0};
      part.logits = !replaying;
      // A replayed row goes first: the rows whose logits come back then
      // start past row 0, which a decode graph recorded with every row's
      // logits must still serve.
      parts.insert(replaying ? parts.begin() : parts.end(), part);
      owners.insert(replaying ? owners.begin() : owners.end(), i);
    }
    if (parts.empty()) {
      if (started == prompts.size()) break;
      continue;
    }
    const std::span<const float> logits = e.Step(parts);
    size_t row = 0;
    for (size_t k = 0; k < parts.size(); ++k) {
      State& s = states[owners[k]];
      if (!parts[k].logits) {
        s.replay.erase(s.replay.begin());
        continue;
      }
      SeqRun& run = runs[owners[k]];
      AppendGreedy(run, logits.subspan(row++ * vocab, vocab));
      s.next = run.tokens.back();
      if (static_cast<int>(run.tokens.size()) == kGenerated) {
        e.CloseSequence(s.seq);
        s.done = true;
      } else if (preempt && owners[k] == 3 && run.tokens.size() == 2 && !preempted) {
        preempted = true;  // drop its KV: recompute everything it has evaluated
        e.CloseSequence(s.seq);
        s.seq = e.OpenSequence();
        EXPECT_TRUE(e.Reserve(s.seq, static_cast<int64_t>(prompts[3].size()) + kGenerated));
        s.prompt_done = false;
        s.replay = {run.tokens[0]};  // then tokens[1], as it would have
      }
    }
  }
  if (preempt) {
    EXPECT_TRUE(preempted);
  }
  return runs;
}

class CudaSteps : public ::testing::TestWithParam<const char*> {};

engine::EngineOptions StepOptions(engine::KvType kv_type = engine::KvType::kF16) {
  engine::EngineOptions options;
  options.max_sequences = kSequences;
  options.context_length = 64;
  options.kv_block_tokens = 8;
  options.kv_type = kv_type;
  return options;
}

TEST_P(CudaSteps, EachSequenceGetsItsSoloBits) {
  ORCD_SKIP_WITHOUT_CUDA();
  auto e = LoadCudaEngine(GetParam(), StepOptions());
  ASSERT_EQ(e->kv_pool().max_sequences, kSequences);
  const auto prompts = Prompts(e->info().vocab);
  std::vector<SeqRun> solo;
  for (const auto& p : prompts) solo.push_back(SoloRun(*e, p, kGenerated));

  // The single-sequence API is the same computation (one prompt pass, then
  // one-token decode runs).
  e->Reset();
  std::span<const float> first = e->Prefill(prompts[1]);
  EXPECT_EQ(0, std::memcmp(first.data(), solo[1].logits.data(), first.size_bytes()))
      << "Prefill() differs from a one-sequence step";
  std::span<const float> second = e->Decode(solo[1].tokens[0]);
  EXPECT_EQ(0,
            std::memcmp(second.data(), solo[1].logits.data() + second.size(), second.size_bytes()))
      << "Decode() differs from a one-sequence decode step";
  e->Reset();

  for (const bool preempt : {false, true}) {
    SCOPED_TRACE(preempt ? "with a preemption" : "without a preemption");
    ExpectSoloBits(Together(*e, prompts, preempt), solo);
    EXPECT_EQ(e->kv_pool().blocks_free, e->kv_pool().blocks_total) << "blocks leaked";
  }
  // Decode steps of several sizes were recorded as graphs and replayed.
  EXPECT_GE(e->cuda_backend()->decode_graphs(), 4u);
  EXPECT_GT(e->cuda_backend()->graph_replays(), 20u);

  // Mixed steps: prompts in chunks of 3 beside the others' decode rows, the
  // kinds alternating row by row (several kind runs, logits rows not one
  // span), and a preempted sequence recomputing among them.
  SCOPED_TRACE("prompt chunks mixed with decode rows");
  const uint64_t replays = e->cuda_backend()->graph_replays();
  ExpectSoloBits(ChunkedTogether(*e, prompts, kGenerated, 3, /*preempt=*/true,
                                 /*one_kind_per_part=*/true),
                 solo);
  EXPECT_EQ(e->kv_pool().blocks_free, e->kv_pool().blocks_total) << "blocks leaked";
  EXPECT_GT(e->cuda_backend()->graph_replays(), replays) << "decode-only steps were not replayed";
}

// A q8_0 KV cache: a step's own keys and values are rounded as they are
// stored, so a sequence's bits still do not depend on its step's company.
TEST_P(CudaSteps, EachSequenceGetsItsSoloBitsWithAQ8Cache) {
  ORCD_SKIP_WITHOUT_CUDA();
  auto e = LoadCudaEngine(GetParam(), StepOptions(engine::KvType::kQ8_0));
  const auto prompts = Prompts(e->info().vocab);
  std::vector<SeqRun> solo;
  for (const auto& p : prompts) solo.push_back(SoloRun(*e, p, kGenerated));
  ExpectSoloBits(Together(*e, prompts, true), solo);
  EXPECT_EQ(e->kv_pool().blocks_free, e->kv_pool().blocks_total) << "blocks leaked";
}

// `model` under `options`: each prompt's solo run, then all of them in mixed
// steps (prompts in chunks of 3 beside decode rows, kinds alternating row by
// row, a preemption) with the solo runs' bits. Returns the solo runs.
std::vector<SeqRun> ExpectMixedStepsKeepSoloBits(const char* model,
                                                 const engine::EngineOptions& options) {
  auto e = LoadCudaEngine(model, options);
  const auto prompts = Prompts(e->info().vocab);
  std::vector<SeqRun> solo;
  for (const auto& p : prompts) solo.push_back(SoloRun(*e, p, kGenerated));
  ExpectSoloBits(ChunkedTogether(*e, prompts, kGenerated, 3, /*preempt=*/true,
                                 /*one_kind_per_part=*/true),
                 solo);
  return solo;
}

// Mixed steps under the settings a worker may change (worker.yaml): decode
// activations in f32 (the plugins' f32 matvecs for decode rows) and CUDA
// graphs off (every decode step eager). A quantized dense model and the MoE
// one with sliding windows.
TEST(CudaMixedSteps, KeepTheSoloBitsWithF32DecodeActivationsOrWithoutGraphs) {
  ORCD_SKIP_WITHOUT_CUDA();
  for (const char* model : {"qwen2-tiny.Q4_K_M", "gptoss-tiny.MXFP4_MOE"}) {
    for (const bool q8 : {false, true}) {
      SCOPED_TRACE(std::string(model) + (q8 ? ", graphs off" : ", f32 decode activations"));
      engine::EngineOptions options = StepOptions();
      options.q8_decode_activations = q8;
      options.cuda_graphs = !q8;
      ExpectMixedStepsKeepSoloBits(model, options);
    }
  }
}

// GEMMs over column tiles (device.cuda_gemm_column_tile; 8 splits these
// prompts into whole tiles and padded rests, and pads every chunk of 3):
// a quantized weight's tensor-core prefill, F16 weights' GEMMs and MoE
// experts'. On the emulated device, whose GEMM is column-invariant anyway,
// the tiles must change no bit; on a GPU this is the kit's check that tiles
// make cuBLAS batch-invariant (the untiled suites above check cuBLAS alone).
TEST(CudaMixedSteps, KeepTheSoloBitsWithColumnTiledGemms) {
  ORCD_SKIP_WITHOUT_CUDA();
  for (const char* model : {"qwen2-tiny.Q4_K_M", "gpt2-tiny.F16", "gptoss-tiny.MXFP4_MOE"}) {
    SCOPED_TRACE(model);
    engine::EngineOptions options = StepOptions();
    options.cuda_gemm_column_tile = 8;
    const std::vector<SeqRun> solo = ExpectMixedStepsKeepSoloBits(model, options);
#if !ORCD_ADAPTER_TEST_ON_GPU
    auto untiled = LoadCudaEngine(model, StepOptions());
    const auto prompts = Prompts(untiled->info().vocab);
    for (size_t i = 0; i < prompts.size(); ++i) {
      const SeqRun plain = SoloRun(*untiled, prompts[i], kGenerated);
      ASSERT_EQ(plain.logits.size(), solo[i].logits.size());
      EXPECT_EQ(0, std::memcmp(plain.logits.data(), solo[i].logits.data(),
                               plain.logits.size() * sizeof(float)))
          << "prompt " << i << ": column tiles changed the emulated device's bits";
    }
#endif
  }
}

// Dense and MoE, F16 and quantized (matvec_q8 / matvec_ids_q8, Phi-3's split
// QKV), RoPE and learned positions, sliding windows with sinks, soft-caps.
INSTANTIATE_TEST_SUITE_P(Fixtures, CudaSteps,
                         ::testing::Values("qwen2-tiny.Q4_K_M", "phi3-tiny.Q4_K_M", "gpt2-tiny.F16",
                                           "gptoss-tiny.MXFP4_MOE", "qwen3moe-tiny.Q4_K_M",
                                           "gemma2-tiny.Q4_K_M"),
                         ModelParamName);

// A step's rows sampled on the device, each with its own job's settings and
// seeded draws, in one launch (steps mixing a prompt with decode rows): every sequence picks the
// tokens the CPU sampler picks from its solo logits (the device sampler equals the CPU's except
// within an ulp of a boundary, which these draws do not hit: see cuda_sampler_test.cc). One
// sequence asks for its logits instead (a job with a grammar or OpenAI's bias) in the same steps:
// its row comes back while the others are sampled. Another asks for log-probabilities with its
// picks: they equal the CPU's ComputeLogprobs of its solo logits within 1e-5.
TEST(CudaStepSampling, EachRowIsSampledOnTheDeviceAsItsSoloRunOnTheHost) {
  ORCD_SKIP_WITHOUT_CUDA();
  engine::EngineOptions options;
  options.max_sequences = 4;
  options.context_length = 64;
  options.kv_block_tokens = 8;
  auto e = LoadCudaEngine("qwen2-tiny.Q4_K_M", options);
  const auto vocab = static_cast<size_t>(e->info().vocab);
  const auto prompts = RandomPrompts(e->info().vocab, 99, {6, 11, 3, 17});
  const auto config = [](double temperature, double penalty, int64_t top_k, double top_p,
                         double min_p, uint64_t seed) {
    SamplerConfig c;
    c.temperature = temperature;
    c.repetition_penalty = penalty;
    c.top_k = top_k;
    c.top_p = top_p;
    c.min_p = min_p;
    c.seed = seed;
    return c;
  };
  const std::vector<SamplerConfig> configs = {
      config(0.0, 1.0, 0, 1.0, 0.0, 31),    // greedy (the argmax, ties to the lowest id)
      config(0.8, 1.3, 40, 0.9, 0.05, 32),  // every filter and a penalty
      config(1.0, 1.0, 0, 1.0, 0.0, 33),    // plain sampling, on the host: logits back
      config(1.5, 1.2, 0, 0.95, 0.0, 34),   // hot, with a penalty
  };
  constexpr size_t kHostRow = 2;
  constexpr size_t kLogprobsRow = 1;
  constexpr int kTopLogprobs = 5;
  constexpr int kTokens = 8;
  // Solo, on the host: each sequence alone, its logits sampled by the CPU sampler.
  std::vector<std::vector<int32_t>> solo(prompts.size());
  std::vector<TokenLogprobs> solo_logprobs;  // of kLogprobsRow's picks
  for (size_t i = 0; i < prompts.size(); ++i) {
    Sampler host(configs[i]);
    const int seq = e->OpenSequence();
    ASSERT_TRUE(e->Reserve(seq, static_cast<int64_t>(prompts[i].size()) + kTokens));
    engine::StepPart part{seq, prompts[i], static_cast<int64_t>(prompts[i].size())};
    std::vector<float> row(vocab);
    for (int t = 0; t < kTokens; ++t) {
      const std::span<const float> logits = e->Step({&part, 1});
      std::copy_n(logits.begin(), vocab, row.begin());
      const std::vector<float> raw = row;
      solo[i].push_back(host.Sample(row));
      if (i == kLogprobsRow)
        solo_logprobs.push_back(ComputeLogprobs(raw, solo[i].back(), kTopLogprobs));
      part = {seq, {&solo[i].back(), 1}, 0};
    }
    e->CloseSequence(seq);
  }

  // Together, in mixed steps: sequence i's prompt comes at step i, first in
  // the step, beside the decode rows of those before it (its sampled row is
  // then not the first logits row); three sequences sampled on the device,
  // the host row's logits back.
  std::vector<Sampler> samplers;
  for (const SamplerConfig& c : configs) samplers.emplace_back(c);
  std::vector<int> seqs(prompts.size(), -1);
  std::vector<std::vector<int32_t>> together(prompts.size());
  std::vector<TokenLogprobs> reported(kTokens);
  const auto draw = [&](size_t i, int t) {
    SampleDraw d = samplers[i].NextDraw();
    if (i == kLogprobsRow) {
      d.top_logprobs = kTopLogprobs;
      d.logprobs = &reported[static_cast<size_t>(t)];
    }
    return engine::SampleRequest::From(d);
  };
  bool mixed = false;
  for (size_t step = 0; step < prompts.size() + kTokens; ++step) {
    std::vector<engine::StepPart> parts;
    std::vector<size_t> owners;
    std::vector<engine::SampleRequest> requests(prompts.size());
    const auto sample = [&](engine::StepPart& part, size_t i) {
      if (i == kHostRow) return;
      requests[i] = draw(i, static_cast<int>(together[i].size()));
      part.sample = &requests[i];
    };
    if (step < prompts.size()) {
      const size_t i = step;
      seqs[i] = e->OpenSequence();
      ASSERT_TRUE(e->Reserve(seqs[i], static_cast<int64_t>(prompts[i].size()) + kTokens));
      engine::StepPart part{seqs[i], prompts[i], static_cast<int64_t>(prompts[i].size())};
      sample(part, i);
      parts.push_back(part);
      owners.push_back(i);
    }
    for (size_t i = 0; i < prompts.size(); ++i) {
      if (together[i].empty() || together[i].size() == static_cast<size_t>(kTokens)) continue;
      engine::StepPart part{seqs[i], {&together[i].back(), 1}, 0};
      sample(part, i);
      parts.push_back(part);
      owners.push_back(i);
    }
    if (parts.empty()) break;
    mixed = mixed || (parts.size() > 1 && parts[0].prompt_tokens > 0);
    const std::span<const float> logits = e->Step(parts);
    const bool host_row = std::find(owners.begin(), owners.end(), kHostRow) != owners.end();
    ASSERT_EQ(logits.size(), host_row ? vocab : 0) << "only the host row's logits come back";
    const std::span<const int32_t> picked = e->step_sampled();
    ASSERT_EQ(picked.size(), owners.size() - (host_row ? 1 : 0));
    size_t k = 0;
    for (const size_t i : owners) {
      if (i == kHostRow) {
        std::vector<float> row(logits.begin(), logits.end());
        together[i].push_back(samplers[i].Sample(row));
      } else {
        together[i].push_back(picked[k++]);
        samplers[i].Record(together[i].back());
      }
    }
  }
  EXPECT_TRUE(mixed) << "no step held a prompt beside decode rows";
  for (size_t i = 0; i < prompts.size(); ++i) {
    EXPECT_EQ(together[i], solo[i]) << "sequence " << i;
    e->CloseSequence(seqs[i]);
  }
  // The device reduced the same raw rows (bit-identical to the solo ones) in
  // another order: a few ulps of a double, far inside 1e-5.
  for (int t = 0; t < kTokens; ++t) {
    const TokenLogprobs& got = reported[static_cast<size_t>(t)];
    const TokenLogprobs& want = solo_logprobs[static_cast<size_t>(t)];
    EXPECT_EQ(got.chosen.id, want.chosen.id) << "token " << t;
    EXPECT_NEAR(got.chosen.logprob, want.chosen.logprob, 1e-5) << "token " << t;
    ASSERT_EQ(got.top.size(), static_cast<size_t>(kTopLogprobs)) << "token " << t;
    for (int k = 0; k < kTopLogprobs; ++k) {
      EXPECT_EQ(got.top[k].id, want.top[k].id) << "token " << t << ", rank " << k;
      EXPECT_NEAR(got.top[k].logprob, want.top[k].logprob, 1e-5) << "token " << t;
    }
  }
  // The draws exercised the distributions: not a constant stream.
  for (const size_t i : {1, 3})
    EXPECT_GT(std::set<int32_t>(solo[i].begin(), solo[i].end()).size(), 2u) << "sequence " << i;
  EXPECT_GT(e->cuda_backend()->graph_replays(), 0u) << "no decode step was replayed";
}

// What a CUDA step cannot hold (a part with prompt and generated tokens, or
// several generated ones: each sequence's rows are of one kind) is refused
// before anything runs, and the sequences are as they were.
TEST(CudaStepLimits, APartMixingKindsIsRefused) {
  ORCD_SKIP_WITHOUT_CUDA();
  engine::EngineOptions options;
  options.max_sequences = 2;
  options.context_length = 64;
  auto e = LoadCudaEngine("qwen2-tiny.Q4_K_M", options);
  const std::vector<int32_t> prompt = {3, 5, 7};
  const SeqRun solo = SoloRun(*e, prompt, 1);
  const int a = e->OpenSequence(), b = e->OpenSequence();
  ASSERT_TRUE(e->Reserve(a, 16));
  ASSERT_TRUE(e->Reserve(b, 16));
  engine::StepPart prompt_then_generated{a, prompt, 2};
  try {
    e->Step({&prompt_then_generated, 1});
    FAIL() << "a part of prompt and generated tokens ran";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(err.what()).find("prompt tokens or one generated token"),
              std::string::npos)
        << err.what();
  }
  engine::StepPart two_generated{a, prompt, 0};
  EXPECT_THROW(e->Step({&two_generated, 1}), Error);
  // Nothing ran: the prompt in both sequences at once (one step) still
  // starts at position 0 and gives each its solo logits.
  engine::StepPart two_prompts[2] = {{a, prompt, 3}, {b, prompt, 3}};
  const std::span<const float> both = e->Step(two_prompts);
  const auto vocab = static_cast<size_t>(e->info().vocab);
  ASSERT_EQ(both.size(), 2 * vocab);
  for (size_t row = 0; row < 2; ++row) {
    EXPECT_EQ(0, std::memcmp(both.data() + row * vocab, solo.logits.data(), vocab * sizeof(float)))
        << "row " << row;
  }
}

// A replayed decode graph runs no adapter: the host still refuses a position
// past gpt2's learned table before the device would read past it.
TEST(CudaStepLimits, ReplayedDecodeStepsPastTheLearnedPositionsAreRefused) {
  ORCD_SKIP_WITHOUT_CUDA();
  engine::EngineOptions options;
  options.context_length = 512;  // the file has 256 learned positions
  auto e = LoadCudaEngine("gpt2-tiny.F16", options);
  int32_t token = e->PrefillGreedy(std::vector<int32_t>(250, 464));
  for (int i = 0; i < 6; ++i) token = e->DecodeGreedy(token);  // positions 250..255
  ASSERT_GT(e->cuda_backend()->graph_replays(), 0u) << "no step was replayed";
  try {
    e->DecodeGreedy(token);  // position 256
    FAIL() << "a position past the learned table ran";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(err.what()).find("learned positions"), std::string::npos) << err.what();
  }
}

#if !ORCD_ADAPTER_TEST_ON_GPU
// The default KV pool on CUDA is every sequence at the context length where
// the device holds it, else what its free memory holds beside the model (a
// worker still starts, its sequences sharing the pool), but never less than
// one sequence's context.
TEST(CudaKvPool, TheDefaultPoolShrinksToTheFreeDeviceMemory) {
  const std::string model = "qwen2-tiny.Q4_K_M";
  engine::EngineOptions options;
  options.max_sequences = 8;
  options.context_length = 512;
  auto roomy = LoadEmulatedCudaEngine(model, 1ull << 30, options);
  const int64_t full_blocks = roomy->kv_pool().blocks_total;
  EXPECT_EQ(full_blocks, 8 * 512 / 32);
  const uint64_t vram = roomy->cuda_backend()->usage().total();
  const uint64_t kv = roomy->info().kv_bytes;
  roomy.reset();

  auto tight = LoadEmulatedCudaEngine(model, vram - kv / 2, options);
  const engine::KvPoolInfo pool = tight->kv_pool();
  EXPECT_LT(pool.blocks_total, full_blocks);
  EXPECT_GE(pool.blocks_total, 512 / 32) << "less than one sequence's context";
  EXPECT_LE(tight->cuda_backend()->usage().total(), vram - kv / 2);
  const SeqRun run = SoloRun(*tight, {1, 2, 3, 4, 5}, 3);
  EXPECT_EQ(run.tokens.size(), 3u);

  try {
    LoadEmulatedCudaEngine(model, vram - kv + kv / 16, options);
    FAIL() << "a device without room for one sequence's context loaded";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kOutOfMemory);
    EXPECT_NE(std::string(err.what()).find("INSUFFICIENT_VRAM"), std::string::npos) << err.what();
  }
}
#endif

}  // namespace
}  // namespace orcd::testing
