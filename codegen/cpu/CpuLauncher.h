// A GIR-Graph compiled for the CPU and ready to run on real buffers: emit, compile (cached), load,
// run, count bytes (instrumented builds) and time (warm-up, median of repeats, spread).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/cpu/CpuCompiler.h"
#include "codegen/cpu/CpuEmitter.h"
#include "core/Expected.h"
#include "core/gir/Graph.h"
#include "core/gir/Interpreter.h"

namespace gir::codegen::cpu {

struct TimingOptions {
  int warmup = 3;
  int minRepeats = 5;
  int maxRepeats = 2000;
  double budgetSeconds = 0.2;  // repeats = budget / first estimate, clamped to [min, max]
  // Cold-cache timing: before each call (untimed) write this many bytes, twice the last-level cache
  // (coldCacheBytes()), so the call finds its data in DRAM. 0: hot, the data stays cached.
  int64_t flushBytes = 0;
};

// Twice the last-level cache this machine reports: the largest in sysfs, else sysconf's (64 MiB when
// neither reports one).
int64_t coldCacheBytes();

// Wall-clock times of repeated calls, in microseconds.
struct Timing {
  double medianUs = 0, minUs = 0, maxUs = 0;
  double p10Us = 0, p90Us = 0;  // the spread: 10th and 90th percentiles
  int repeats = 0;
};
Timing summarize(std::vector<double> samplesUs);

// `call` timed as TimingOptions says: warm-up calls, one estimate, then the repeats the budget allows,
// each after the eviction when flushBytes > 0 (the eviction untimed).
Timing timeCalls(const std::function<void()>& call, const TimingOptions& t);

struct LaunchOptions {
  CompileOptions compile;
  CpuEmitOptions emit;
  int threads = 0;  // 0: OpenMP's default
};

class CompiledKernel {
 public:
  static Expected<CompiledKernel> build(const Graph& g, const LaunchOptions& options = {});

  // Runs every kernel once on fresh buffers; returns the output buffers by GIR name.
  Expected<TensorMap> run(const TensorMap& inputs);
  // Times gir_run (all kernels, one parallel region) on the given inputs.
  Expected<Timing> time(const TensorMap& inputs, const TimingOptions& t = {});
  // Times each kernel alone (gir_run_kernel), in kernel order.
  Expected<std::vector<Timing>> timeKernels(const TensorMap& inputs, const TimingOptions& t = {});
  // Instrumented builds: bytes the emitted loops moved at device-scope levels in one gir_run.
  Expected<int64_t> countBytes(const TensorMap& inputs);

  int kernels() const { return source_->kernels; }
  const CpuSource& source() const { return *source_; }
  const CompiledObject& object() const { return object_; }

 private:
  struct Buffers;
  Expected<std::shared_ptr<Buffers>> prepare(const TensorMap& inputs);

  std::shared_ptr<CpuSource> source_;
  CompiledObject object_;
  SharedLibrary library_;
  using RunFn = int (*)(float* const*);
  using RunKernelFn = int (*)(int, float* const*);
  RunFn run_ = nullptr;
  RunKernelFn runKernel_ = nullptr;
  long long (*counted_)() = nullptr;
  void (*resetCounted_)() = nullptr;
};

}  // namespace gir::codegen::cpu
