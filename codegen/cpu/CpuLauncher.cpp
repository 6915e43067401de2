// Building, running and timing a generated CPU library.
#include "codegen/cpu/CpuLauncher.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include "codegen/cpu/HostArray.h"

namespace gir::codegen::cpu {

Timing summarize(std::vector<double> s) {
  Timing t;
  if (s.empty()) return t;
  std::sort(s.begin(), s.end());
  auto at = [&](double q) { return s[static_cast<size_t>(q * static_cast<double>(s.size() - 1) + 0.5)]; };
  t.repeats = static_cast<int>(s.size());
  t.minUs = s.front();
  t.maxUs = s.back();
  t.medianUs = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
  t.p10Us = at(0.1);
  t.p90Us = at(0.9);
  return t;
}

// The arrays of one run: one host array per argument of the generated code.
struct CompiledKernel::Buffers {
  std::vector<HostArray> owned;
  std::vector<float*> ptrs;  // owned's pointers, as gir_run takes them
  std::vector<int64_t> sizes;
};

Expected<CompiledKernel> CompiledKernel::build(const Graph& g, const LaunchOptions& options) {
  auto src = emitCpu(g, options.emit);
  if (!src) return src.takeError();
  CompiledKernel k;
  k.source_ = std::make_shared<CpuSource>(std::move(*src));
  auto obj = compileSource(k.source_->code, options.compile);
  if (!obj) return obj.takeError();
  k.object_ = *obj;
  auto lib = loadLibrary(obj->objectPath);
  if (!lib) return lib.takeError();
  k.library_ = *lib;
  auto sig = reinterpret_cast<const char* (*)()>(k.library_.symbol("gir_signature"));
  k.run_ = reinterpret_cast<RunFn>(k.library_.symbol("gir_run"));
  k.runKernel_ = reinterpret_cast<RunKernelFn>(k.library_.symbol("gir_run_kernel"));
  k.counted_ = reinterpret_cast<long long (*)()>(k.library_.symbol("gir_counted_bytes"));
  k.resetCounted_ = reinterpret_cast<void (*)()>(k.library_.symbol("gir_reset_counted_bytes"));
  auto setThreads = reinterpret_cast<void (*)(int)>(k.library_.symbol("gir_set_threads"));
  if (!sig || !k.run_ || !k.runKernel_ || !k.counted_ || !k.resetCounted_ || !setThreads)
    return makeError(obj->objectPath + " lacks the entry points of a generated GIR library");
  if (k.source_->signature != sig())
    return makeError(obj->objectPath + " was built for another argument list ('" + std::string(sig()) + "', expected '" +
                     k.source_->signature + "'); remove it from the cache");
  if (options.threads > 0) setThreads(options.threads);
  return k;
}

Expected<std::shared_ptr<CompiledKernel::Buffers>> CompiledKernel::prepare(const TensorMap& inputs) {
  auto b = std::make_shared<Buffers>();
  for (const GlobalArg& a : source_->args) {
    auto array = allocateHostArray(a.elements);
    if (!array) return makeError("buffer '%" + a.name + "': " + array.error().message);
    float* p = array->get();
    b->owned.push_back(std::move(*array));
    b->ptrs.push_back(p);
    b->sizes.push_back(a.elements);
    if (a.role != BufferRole::Input) {
      std::fill(p, p + a.elements, std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    auto it = inputs.find(a.name);
    if (it == inputs.end()) return makeError("no data given for input buffer '%" + a.name + "'");
    if (static_cast<int64_t>(it->second.size()) != a.elements)
      return makeError("input '%" + a.name + "' needs " + std::to_string(a.elements) + " values, got " + std::to_string(it->second.size()));
    std::memcpy(p, it->second.data(), static_cast<size_t>(a.elements) * 4);
  }
  return b;
}

Expected<TensorMap> CompiledKernel::run(const TensorMap& inputs) {
  auto b = prepare(inputs);
  if (!b) return b.takeError();
  if (int rc = run_((*b)->ptrs.data()); rc != 0) return makeError("gir_run returned " + std::to_string(rc));
  TensorMap out;
  for (size_t i = 0; i < source_->args.size(); ++i)
    if (source_->args[i].role == BufferRole::Output)
      out[source_->args[i].name] = std::vector<float>((*b)->ptrs[i], (*b)->ptrs[i] + (*b)->sizes[i]);
  return out;
}

// The largest cache the kernel lists for CPU 0 ("32768K" in /sys/devices/system/cpu/cpu0/cache/index*/size),
// 0 when it lists none.
static int64_t sysfsLastLevelCacheBytes() {
  int64_t largest = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    int64_t size = 0;
    char unit = 0;
    if (!(in >> size)) continue;
    in >> unit;
    largest = std::max(largest, size << (unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0));
  }
  return largest;
}

// The kernel's cache list first, as the benchmark's peers take it (bench/cpu/bench_cpu.py): glibc's
// sysconf decodes CPUID itself and said 320 MiB of L3 on the AVX-512 host of 2026-11-29, whose kernel
// and lscpu say 32 MiB, so `--cold` evicted 640 MiB where the peers evicted 64 (docs/cpu.md, "Cold runs").
int64_t coldCacheBytes() {
  int64_t llc = sysfsLastLevelCacheBytes();
  if (llc <= 0) llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return llc > 0 ? 2 * llc : int64_t{64} << 20;
}

// Evicts the caches by reading and writing every element of `flush` (docs/cpu.md, "Cold runs"). A memset
// does not: glibc's goes by `rep stosb`, whose stores skip the caches on the AVX-512 host of 2026-11-29
// (a 16 MiB read after a 64 MiB memset took 341 us, 323 us hot, 460-480 us after a pass of plain stores).
static void evictCaches(float* flush, int64_t elements) {
  for (int64_t i = 0; i < elements; ++i) flush[i] += 1.0f;
}

// The eviction buffer sits on huge pages, as the peers' NumPy buffer does: on 4 KiB pages its dirty
// lines are scattered over DRAM, and writing them back inside the timed call cost the next call 4-6 %
// more (docs/cpu.md, "Cold runs").
static HostArray evictionBuffer(int64_t bytes) {
  if (bytes <= 0) return nullptr;
  const auto elements = static_cast<size_t>(bytes) / sizeof(float);
  auto a = allocateHostArray(static_cast<int64_t>(elements));
  // Where no aligned block is to be had, 4 KiB pages still evict (a cold run must not turn hot).
  HostArray buffer = a ? std::move(*a) : HostArray(static_cast<float*>(std::malloc(elements * sizeof(float))));
  if (buffer) std::fill_n(buffer.get(), elements, 0.0f);
  return buffer;
}

Timing timeCalls(const std::function<void()>& call, const TimingOptions& t) {
  using Clock = std::chrono::steady_clock;
  const int64_t flushElements = t.flushBytes / static_cast<int64_t>(sizeof(float));
  HostArray flush = evictionBuffer(t.flushBytes);
  auto once = [&] {
    if (flush) evictCaches(flush.get(), flushElements);  // evicts the call's data
    auto start = Clock::now();
    call();
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  };
  for (int i = 0; i < t.warmup; ++i) once();
  auto repeatStart = Clock::now();
  double estimate = std::max(once(), 0.01);
  // The budget covers the untimed evictions too: a cold repeat of a 50 us kernel costs a 64 MiB write.
  double perRepeat = std::chrono::duration<double, std::micro>(Clock::now() - repeatStart).count();
  int repeats = static_cast<int>(std::clamp(t.budgetSeconds * 1e6 / std::max(estimate, perRepeat), static_cast<double>(t.minRepeats),
                                            static_cast<double>(t.maxRepeats)));
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(repeats));
  for (int i = 0; i < repeats; ++i) samples.push_back(once());
  return summarize(std::move(samples));
}

Expected<Timing> CompiledKernel::time(const TensorMap& inputs, const TimingOptions& t) {
  auto b = prepare(inputs);
  if (!b) return b.takeError();
  float* const* args = (*b)->ptrs.data();
  return timeCalls([&] { run_(args); }, t);
}

Expected<std::vector<Timing>> CompiledKernel::timeKernels(const TensorMap& inputs, const TimingOptions& t) {
  auto b = prepare(inputs);
  if (!b) return b.takeError();
  float* const* args = (*b)->ptrs.data();
  run_(args);  // every kernel reads what earlier kernels wrote: fill the temporaries once
  std::vector<Timing> out;
  for (int k = 0; k < kernels(); ++k) out.push_back(timeCalls([&] { runKernel_(k, args); }, t));
  return out;
}

Expected<int64_t> CompiledKernel::countBytes(const TensorMap& inputs) {
  if (counted_() < 0) return makeError("this library was not built with instrumentation (CpuEmitOptions::instrument)");
  auto b = prepare(inputs);
  if (!b) return b.takeError();
  resetCounted_();
  run_((*b)->ptrs.data());
  return static_cast<int64_t>(counted_());
}

}  // namespace gir::codegen::cpu
