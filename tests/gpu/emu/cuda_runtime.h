// A CPU emulation of the CUDA subset the GIR emitter uses, for tests on machines without a GPU:
// every thread of a block is a fiber (ucontext) on one OS thread; __syncthreads, __syncwarp and the
// warp shuffles are barriers among the fibers of the block or warp, so the emitted kernels run with
// the semantics of lockstep-free SIMT (a missing barrier shows as a wrong value, not a hang).
// Blocks run one after another, so a kernel's `__shared__` arrays become function-static storage.
// Kernel launches `k<<<grid, block, 0, stream>>>(args)` are rewritten by the test into gir_emu::launch.
// hip/hip_runtime.h reuses it with 64-lane wavefronts and HIP names.
#pragma once

#include <ucontext.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <math.h>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __restrict__
#define __shared__ static

struct GirEmuDim3 {
  int x = 0, y = 0, z = 0;
};

namespace gir_emu {

#ifndef GIR_EMU_LANES
#define GIR_EMU_LANES 32
#endif
constexpr int kLanes = GIR_EMU_LANES;
constexpr size_t kStackBytes = 256 * 1024;

struct Fiber {
  ucontext_t ctx;
  std::vector<char> stack;
  bool done = false;
};

inline std::vector<Fiber> fibers;
inline ucontext_t scheduler;
inline int current = 0;
inline GirEmuDim3 threadIdxVar, blockIdxVar;
inline std::vector<long> warpGen, warpArrived;
inline long blockGen = 0, blockArrived = 0;
inline std::vector<double> shuffleSlots;  // double: sum and product accumulators are double
inline std::function<void()> body;

inline void yield() { swapcontext(&fibers[current].ctx, &scheduler); }

inline void barrier(long& gen, long& arrived, long count) {
  long g = gen;
  if (++arrived == count) {
    arrived = 0;
    ++gen;
    return;
  }
  while (gen == g) yield();
}

inline void warpBarrier() {
  int w = current / kLanes;
  barrier(warpGen[w], warpArrived[w], kLanes);
}

template <class T>
inline T shuffle(T v, int srcLane) {
  int w = current / kLanes;
  shuffleSlots[current] = v;
  warpBarrier();
  T r = static_cast<T>(shuffleSlots[w * kLanes + (srcLane & (kLanes - 1))]);
  warpBarrier();
  return r;
}

inline void trampoline() {
  body();
  fibers[current].done = true;
  swapcontext(&fibers[current].ctx, &scheduler);
}

template <typename Kernel, typename... Args>
void launch(Kernel kernel, int grid, int block, Args... args) {
  if (block % kLanes != 0) std::abort();
  fibers.resize(block);
  for (auto& f : fibers) f.stack.resize(kStackBytes);
  shuffleSlots.assign(block, 0.0);
  body = [&] { kernel(args...); };
  for (int b = 0; b < grid; ++b) {
    blockIdxVar.x = b;
    warpGen.assign(block / kLanes, 0);
    warpArrived.assign(block / kLanes, 0);
    blockGen = blockArrived = 0;
    for (int t = 0; t < block; ++t) {
      Fiber& f = fibers[t];
      f.done = false;
      getcontext(&f.ctx);
      f.ctx.uc_stack.ss_sp = f.stack.data();
      f.ctx.uc_stack.ss_size = f.stack.size();
      f.ctx.uc_link = nullptr;
      makecontext(&f.ctx, trampoline, 0);
    }
    for (bool busy = true; busy;) {
      busy = false;
      for (int t = 0; t < block; ++t) {
        if (fibers[t].done) continue;
        busy = true;
        current = t;
        threadIdxVar.x = t;
        swapcontext(&scheduler, &fibers[t].ctx);
      }
    }
  }
}

}  // namespace gir_emu

#define threadIdx (::gir_emu::threadIdxVar)
#define blockIdx (::gir_emu::blockIdxVar)

inline void __syncthreads() { ::gir_emu::barrier(::gir_emu::blockGen, ::gir_emu::blockArrived, static_cast<long>(::gir_emu::fibers.size())); }
inline void __syncwarp() { ::gir_emu::warpBarrier(); }
inline float __shfl_sync(unsigned, float v, int src) { return ::gir_emu::shuffle(v, src); }
inline float __shfl_xor_sync(unsigned, float v, int mask) { return ::gir_emu::shuffle(v, (::gir_emu::current % ::gir_emu::kLanes) ^ mask); }
inline double __shfl_xor_sync(unsigned, double v, int mask) { return ::gir_emu::shuffle(v, (::gir_emu::current % ::gir_emu::kLanes) ^ mask); }

// The host runtime: device memory is host memory, every call succeeds, events read a steady clock.
typedef int cudaError_t;
typedef int cudaStream_t;
typedef double cudaEvent_t;
enum { cudaSuccess = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
inline const char* cudaGetErrorString(cudaError_t) { return "emulated"; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaGetDeviceCount(int* n) { *n = 1; return cudaSuccess; }
inline cudaError_t cudaMalloc(void** p, size_t n) { *p = std::malloc(n ? n : 1); return cudaSuccess; }
inline cudaError_t cudaMemset(void* p, int v, size_t n) { std::memset(p, v, n); return cudaSuccess; }
inline cudaError_t cudaMemcpy(void* d, const void* s, size_t n, int) { std::memcpy(d, s, n); return cudaSuccess; }
inline cudaError_t cudaFree(void* p) { std::free(p); return cudaSuccess; }
inline cudaError_t cudaStreamCreate(cudaStream_t* s) { *s = 0; return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaEventCreate(cudaEvent_t* e) { *e = 0; return cudaSuccess; }
inline cudaError_t cudaEventRecord(cudaEvent_t&, cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) { *ms = 0; return cudaSuccess; }
