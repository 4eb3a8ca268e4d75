// Runs CUDA kernels on the host, for tests and for the emulated device on
// which CI runs the whole CUDA backend. Every CUDA thread is a fiber with its
// own stack; the CTA's fibers run one at a time on the calling OS thread and
// switch only where CUDA threads synchronise (__syncthreads, warp shuffles),
// so a barrier costs a few context switches, not a futex. CTAs run one after
// another, which is why `__shared__` may be a function-local static.
//
// What it checks: indexing, tiling, reductions and barrier placement (a
// barrier that not every live thread of the CTA reaches aborts with a
// message instead of hanging). What it cannot check: the memory model
// (fibers interleave only at barriers, so a missing barrier around shared
// memory can still pass), coalescing, speed, and anything nvcc compiles
// differently from the host compiler.
//
// Include it instead of the CUDA headers, before the device code; device code
// may use threadIdx / blockIdx / blockDim / gridDim, __syncthreads,
// __shfl_xor_sync / __shfl_up_sync (32- and 64-bit values) and the
// qualifiers below.
#ifndef ORCD_CPP_CUDA_EMULATOR_H_
#define ORCD_CPP_CUDA_EMULATOR_H_

#include <math.h>  // fmaf, expf, ... as device code calls them

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#if !defined(__x86_64__) || defined(__SANITIZE_ADDRESS__)
#include <ucontext.h>
#define ORCD_EMULATOR_UCONTEXT 1
#endif

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
using EmulatedDim3 = dim3;
inline thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;

struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) float2 {
  float x, y;
};

namespace orcd::cuda_emulator {

constexpr size_t kStackBytes = 64 * 1024;
constexpr unsigned kWarpSize = 32;

struct Barrier {
  unsigned expected = 0;
  unsigned arrived = 0;
  uint64_t generation = 0;
};

struct Fiber {
#if ORCD_EMULATOR_UCONTEXT
  ucontext_t context;
#else
  void* sp = nullptr;
#endif
  dim3 tid;
  unsigned linear = 0;
  bool done = false;
  Barrier* waiting = nullptr;
  uint64_t wait_generation = 0;
};

struct Cta {
  Barrier all;
  std::vector<Barrier> warps;
  std::vector<uint64_t> lanes[2];  // shuffle exchange, by the warp barrier's parity
  std::vector<Fiber> fibers;
  Fiber* current = nullptr;
#if ORCD_EMULATOR_UCONTEXT
  ucontext_t scheduler;
#else
  void* scheduler_sp = nullptr;
#endif
  void (*invoke)(void*) = nullptr;
  void* kernel = nullptr;
};

// One per OS thread: the running CTA and the stacks, reused across launches.
struct ThreadState {
  Cta* cta = nullptr;
  std::vector<std::unique_ptr<char[]>> stacks;
};
inline thread_local ThreadState g_state;

#if !ORCD_EMULATOR_UCONTEXT
// Saves the callee-saved registers on the current stack, stores the stack
// pointer in *save and continues on `load` (the System V x86-64 ABI's
// callee-saved set; kernels never change the FP control words).
__attribute__((naked, noinline)) inline void SwitchStacks(void** /*save*/, void* /*load*/) {
  __asm__ volatile(
      "pushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n\t"
      "movq %rsp, (%rdi)\n\tmovq %rsi, %rsp\n\t"
      "popq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n\tret\n\t");
}
#endif

inline void YieldToScheduler() {
  Cta& cta = *g_state.cta;
#if ORCD_EMULATOR_UCONTEXT
  swapcontext(&cta.current->context, &cta.scheduler);
#else
  SwitchStacks(&cta.current->sp, cta.scheduler_sp);
#endif
}

[[noreturn]] inline void FiberMain() {
  Cta& cta = *g_state.cta;
  cta.invoke(cta.kernel);
  cta.current->done = true;
  YieldToScheduler();
  std::abort();  // a finished fiber is never resumed
}

#if ORCD_EMULATOR_UCONTEXT
inline void FiberMainTrampoline() { FiberMain(); }
#endif

// Blocks the calling fiber until every live participant of `b` arrived.
inline void Arrive(Barrier& b) {
  if (++b.arrived >= b.expected) {
    b.arrived = 0;
    ++b.generation;
    return;
  }
  Fiber& f = *g_state.cta->current;
  f.waiting = &b;
  f.wait_generation = b.generation;
  YieldToScheduler();
}

// A finished thread no longer counts towards its barriers (CUDA: exited
// threads do not block __syncthreads of the others).
inline void Drop(Barrier& b) {
  --b.expected;
  if (b.arrived > 0 && b.arrived >= b.expected) {
    b.arrived = 0;
    ++b.generation;
  }
}

// Lane `source(lane)`'s v (the calling lane's own where that lane is
// outside the warp), after every lane of the warp has offered its own.
template <class V, class Source>
V Shuffle(V v, Source source) {
  static_assert(sizeof(V) <= sizeof(uint64_t));
  Cta& cta = *g_state.cta;
  const unsigned tid = cta.current->linear;
  const unsigned warp = tid / kWarpSize;
  Barrier& b = cta.warps[warp];
  std::vector<uint64_t>& lanes = cta.lanes[b.generation & 1];
  std::memcpy(&lanes[tid], &v, sizeof v);
  Arrive(b);
  const int from = source(static_cast<int>(tid % kWarpSize));
  const unsigned other =
      from >= 0 && from < static_cast<int>(kWarpSize) ? warp * kWarpSize + from : tid;
  V out;
  std::memcpy(&out, &lanes[other < lanes.size() ? other : tid], sizeof out);
  return out;
}

template <class V>
V ShuffleXor(V v, int lane_mask) {
  return Shuffle(v, [lane_mask](int lane) { return lane ^ lane_mask; });
}

// Points a fiber's context at FiberMain on `stack`. Out of line: getcontext
// returns twice, which must not touch the launch loop's variables.
__attribute__((noinline)) inline void PrepareFiber(Fiber& f, char* stack) {
#if ORCD_EMULATOR_UCONTEXT
  getcontext(&f.context);
  f.context.uc_stack.ss_sp = stack;
  f.context.uc_stack.ss_size = kStackBytes;
  f.context.uc_link = nullptr;
  makecontext(&f.context, &FiberMainTrampoline, 0);
#else
  // Six zeroed callee-saved registers, then FiberMain as the return address;
  // entered with rsp = 8 mod 16 like a called function.
  auto top = reinterpret_cast<uintptr_t>(stack + kStackBytes) & ~uintptr_t{15};
  auto* sp = reinterpret_cast<uintptr_t*>(top - 64);
  for (int i = 0; i < 6; ++i) sp[i] = 0;
  sp[6] = reinterpret_cast<uintptr_t>(&FiberMain);
  sp[7] = 0;
  f.sp = sp;
#endif
}

inline void RunCta(Cta& cta) {
  unsigned live = static_cast<unsigned>(cta.fibers.size());
  while (live > 0) {
    bool progressed = false;
    for (Fiber& f : cta.fibers) {
      if (f.done || (f.waiting && f.waiting->generation == f.wait_generation)) continue;
      f.waiting = nullptr;
      cta.current = &f;
      threadIdx = f.tid;
#if ORCD_EMULATOR_UCONTEXT
      swapcontext(&cta.scheduler, &f.context);
#else
      SwitchStacks(&cta.scheduler_sp, f.sp);
#endif
      progressed = true;
      if (f.done) {
        --live;
        Drop(cta.all);
        Drop(cta.warps[f.linear / kWarpSize]);
      }
    }
    if (!progressed) {
      std::fprintf(stderr,
                   "cuda_emulator: deadlock in CTA (%u,%u,%u): %u live threads wait at a barrier "
                   "that the others never reach (__syncthreads or a shuffle in divergent code)\n",
                   blockIdx.x, blockIdx.y, blockIdx.z, live);
      std::abort();
    }
  }
}

// Runs kernel() (a callable taking no arguments that reads threadIdx etc.)
// as grid.x * grid.y * grid.z CTAs of block.x * block.y * block.z threads.
template <class Kernel>
void launch(dim3 grid, dim3 block, Kernel kernel) {
  const unsigned threads = block.x * block.y * block.z;
  if (threads == 0 || threads > 1024) {
    std::fprintf(stderr, "cuda_emulator: invalid block of %u threads\n", threads);
    std::abort();
  }
  ThreadState& state = g_state;
  while (state.stacks.size() < threads)
    state.stacks.push_back(std::make_unique<char[]>(kStackBytes));
  Cta cta;
  cta.invoke = [](void* k) { (*static_cast<Kernel*>(k))(); };
  cta.kernel = &kernel;
  cta.fibers.resize(threads);
  const unsigned warps = (threads + kWarpSize - 1) / kWarpSize;
  cta.warps.resize(warps);
  cta.lanes[0].assign(threads, 0);
  cta.lanes[1].assign(threads, 0);
  Cta* const outer = state.cta;
  state.cta = &cta;
  const dim3 saved_thread = threadIdx, saved_block = blockIdx;
  gridDim = grid;
  blockDim = block;
  for (unsigned gz = 0; gz < grid.z; ++gz) {
    for (unsigned gy = 0; gy < grid.y; ++gy) {
      for (unsigned gx = 0; gx < grid.x; ++gx) {
        blockIdx = dim3(gx, gy, gz);
        cta.all = Barrier{threads, 0, 0};
        for (unsigned w = 0; w < warps; ++w) {
          const unsigned in_warp =
              threads - w * kWarpSize < kWarpSize ? threads - w * kWarpSize : kWarpSize;
          cta.warps[w] = Barrier{in_warp, 0, 0};
        }
        for (unsigned t = 0; t < threads; ++t) {
          Fiber& f = cta.fibers[t];
          f.linear = t;
          f.tid = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
          f.done = false;
          f.waiting = nullptr;
          PrepareFiber(f, state.stacks[t].get());
        }
        RunCta(cta);
      }
    }
  }
  state.cta = outer;
  threadIdx = saved_thread;
  blockIdx = saved_block;
}

}  // namespace orcd::cuda_emulator

// The CUDA device functions the emulator provides.
inline void __syncthreads() { orcd::cuda_emulator::Arrive(orcd::cuda_emulator::g_state.cta->all); }
// Shuffles of the types CUDA has them for (int, float, 64-bit integers,
// double); every lane of the warp calls, as a full mask asks.
template <class V>
inline V __shfl_xor_sync(unsigned /*mask*/, V v, int lane_mask) {
  static_assert(std::is_arithmetic_v<V> && (sizeof(V) == 4 || sizeof(V) == 8));
  return orcd::cuda_emulator::ShuffleXor(v, lane_mask);
}
// Lane l gets lane l - delta's v; lanes below delta keep their own.
template <class V>
inline V __shfl_up_sync(unsigned /*mask*/, V v, unsigned delta) {
  static_assert(std::is_arithmetic_v<V> && (sizeof(V) == 4 || sizeof(V) == 8));
  return orcd::cuda_emulator::Shuffle(v, [delta](int lane) {
    return lane >= static_cast<int>(delta) ? lane - static_cast<int>(delta) : lane;
  });
}

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

#endif  // ORCD_CPP_CUDA_EMULATOR_H_
