// The calibration microbenchmarks: a generated library of STREAM-style loops timed from here.
#include "codegen/cpu/Calibration.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <sstream>
#include <vector>

#include "codegen/cpu/CpuLauncher.h"
#include "codegen/cpu/CpuNodeEmitter.h"
#include "codegen/cpu/EmittedArithmetic.h"
#include "codegen/cpu/CpuPrelude.h"
#include "codegen/cpu/HostArray.h"

namespace gir::codegen::cpu {

namespace {

// Kept as source so it is compiled with exactly the flags of generated kernels, after the same
// prelude (its girExp, girSigmoid, girErf, ... are what the transcendental rates measure).
constexpr const char* kBenchSource = R"CPP(// GIR Workbench calibration microbenchmarks (codegen/cpu/Calibration.cpp).
#include <cstddef>
#include <utility>

namespace {
thread_local std::vector<float> cacheX, cacheY;
volatile float sink;

// Row sums over rows of kCols floats, each row read as a lone row sum's lane blocks read it, with the
// same constant strides as the emitted loops (docs/cpu.md, "Two segments"): two 16-float partials per
// step, side by side (one stream: blocks of 128) or half a row apart (two segments: blocks of 64 over
// the first half).
template <int64_t kCols, int kSegments>
float rowSums(const float* a, int64_t rows) {
  constexpr int64_t kStep = kSegments == 2 ? 16 : 32, kHalf = kSegments == 2 ? kCols / 2 : 16, kExtent = kCols / kSegments;
  float total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = a + r * kCols;
    alignas(64) float lanes[16] = {};
    for (int64_t block = 0; block < kExtent; block += 4 * kStep) {
      alignas(64) float part[16] = {}, part1[16] = {};
      for (int64_t step = block; step < block + 4 * kStep; step += kStep) {
#pragma omp simd
        for (int64_t l = 0; l < 16; ++l) part[l] += row[step + l];
#pragma omp simd
        for (int64_t l = 0; l < 16; ++l) part1[l] += row[step + kHalf + l];
      }
#pragma omp simd
      for (int64_t l = 0; l < 16; ++l) lanes[l] += part[l] + part1[l];
    }
    total += girLaneSum(lanes);
  }
  return total;
}
constexpr int64_t kRowSumCols = 4096;
}

extern "C" {
void gir_set_threads(int n) { omp_set_num_threads(n); }
int cal_threads() {
  int t = 1;
#pragma omp parallel
#pragma omp single
  t = omp_get_num_threads();
  return t;
}
// First touch by the threads that later stream the array (page placement).
void cal_init(float* a, int64_t n, float v) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) a[i] = v;
}
void cal_copy(float* __restrict a, const float* __restrict b, int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) a[i] = b[i];
}
// The copy generated kernels do for a streamed output: 64-byte lines through girStreamLine.
void cal_copy_stream(float* __restrict a, const float* __restrict b, int64_t n) {
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t r = 0; r < n / 16; ++r) {
      alignas(64) float line[16];
#pragma omp simd
      for (int64_t i = 0; i < 16; ++i) line[i] = b[r * 16 + i];
      girStreamLine(a + r * 16, line);
    }
    girStreamFence();
  }
}
float cal_read(const float* a, int64_t n) {
  float s = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += a[i];
  return s;
}
// Rows of kRowSumCols floats, which the caller asks for rather than spelling again.
int64_t cal_row_sum_columns() { return kRowSumCols; }
float cal_row_sums_one_stream(const float* a, int64_t rows) { return rowSums<kRowSumCols, 1>(a, rows); }
float cal_row_sums_two_segments(const float* a, int64_t rows) { return rowSums<kRowSumCols, 2>(a, rows); }
// Every thread copies its own cache-sized array back and forth `passes` times.
void cal_cache_copy(int64_t n, int passes) {
#pragma omp parallel
  {
    if (static_cast<int64_t>(cacheX.size()) < n) {
      cacheX.assign(static_cast<size_t>(n), 1.0f);
      cacheY.assign(static_cast<size_t>(n), 2.0f);
    }
    float* x = cacheX.data();
    float* y = cacheY.data();
    for (int p = 0; p < passes; ++p) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) y[i] = x[i];
      std::swap(x, y);
    }
    if (x[0] < 0) sink = x[0];
  }
}
)CPP";

// The functions kernels call for transcendentals, each with the name its rate goes by and its C over an
// argument in [0.5, 5.5): every transcendental op of the op table (core/gir/ScalarOps.h) as the emitter
// spells it (elementwiseExpr; pow's exponent is 1.5, as pow by an immediate 2 is a multiply), and the
// emitter's two special forms (codegen/cpu/EmittedArithmetic.h; girExpNonPositive over the negated argument).
struct TranscendentalCall {
  std::string function, expr;
};
std::vector<TranscendentalCall> transcendentalCalls(const std::string& arg) {
  std::vector<TranscendentalCall> calls;
  for (int k = 0; k <= static_cast<int>(ElementwiseOp::Select); ++k) {
    auto op = static_cast<ElementwiseOp>(k);
    if (!isTranscendental(op)) continue;
    std::vector<std::string> args{arg};
    if (elementwiseArity(op) == 2) args.push_back("1.5f");
    calls.push_back({std::string(elementwiseName(op)), elementwiseExpr(op, args)});
  }
  calls.push_back({std::string(kExpOfNonPositive.function), renderPattern(kExpOfNonPositive.pattern, {"-" + arg})});
  calls.push_back({std::string(kOnePlusErf.function), renderPattern(kOnePlusErf.pattern, {arg})});
  return calls;
}

constexpr const char* kTranscendentalArgument = "(in[i] + 1e-4f * static_cast<float>(p))";  // no pass is like another
std::string transcendentalEntry(const std::string& function) { return "cal_" + function; }

// Per function, `cal_<function>(n, passes)`: every thread evaluates it over its own L1-sized array
// `passes` times, the rate of that function as generated kernels compute it. Compiled as the kernels
// that compute transcendentals are (wideVectorsBegin, CpuPrelude.h).
std::string transcendentalSource() {
  std::string src;
  for (const TranscendentalCall& call : transcendentalCalls(kTranscendentalArgument))
    src += "void " + transcendentalEntry(call.function) + R"CPP((int64_t n, int passes) {
#pragma omp parallel
  {
    std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = 0.5f + 0.001f * static_cast<float>(i % 5000);
    for (int p = 0; p < passes; ++p) {
      float* __restrict out = y.data();
      const float* __restrict in = x.data();
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) out[i] = )CPP" + call.expr + R"CPP(;
      if (out[p % n] < 0) sink = out[0];
    }
  }
}
)CPP";
  return src;
}

constexpr const char* kBenchTail = R"CPP(void cal_barriers(int reps) {
#pragma omp parallel
  for (int r = 0; r < reps; ++r) {
#pragma omp barrier
  }
}
void cal_launches(int reps) {
  for (int r = 0; r < reps; ++r) {
#pragma omp parallel
    {
#pragma omp for schedule(static)
      for (int i = 0; i < omp_get_num_threads(); ++i)
        if (i < 0) sink = 0;
    }
  }
}
}
)CPP";

// The sorted times of `repeats` calls after a warm-up call (first touch, thread pool start).
template <typename Call>
std::vector<double> sortedSeconds(Call call, int repeats) {
  call();
  std::vector<double> s;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    call();
    s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(s.begin(), s.end());
  return s;
}

template <typename Call>
double medianSeconds(Call call, int repeats) {
  auto s = sortedSeconds(call, repeats);
  return s[s.size() / 2];
}

// The median time of each call when they are made in turn, one call of each per round, after a
// warm-up call of each: a slow moment of this shared host then slows one call of every function, not
// every call of one, and the times keep their ratios.
std::vector<double> interleavedMedianSeconds(const std::vector<std::function<void()>>& calls, int repeats) {
  for (const auto& call : calls) call();
  std::vector<std::vector<double>> seconds(calls.size());
  for (int r = 0; r < repeats; ++r)
    for (size_t f = 0; f < calls.size(); ++f) {
      auto t0 = std::chrono::steady_clock::now();
      calls[f]();
      seconds[f].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  std::vector<double> medians;
  for (std::vector<double>& s : seconds) {
    std::sort(s.begin(), s.end());
    medians.push_back(s[s.size() / 2]);
  }
  return medians;
}

// A lone row sum's rows front to back or as two halves side by side, interleaved over the same array of
// n floats (docs/cpu.md, "Two segments"): which keeps more lines in flight depends on the machine's
// prefetchers. Rows of `rowCols` floats, the microbenchmark's own (cal_row_sum_columns).
using RowSums = float (*)(const float*, int64_t);
void measureRowSums(Calibration& c, RowSums oneStream, RowSums twoSegments, int64_t rowCols, const float* a, int64_t n, int repeats) {
  const int64_t rowCount = n / rowCols;
  if (rowCount == 0) return;
  std::vector<double> s = interleavedMedianSeconds({[&] { (void)oneStream(a, rowCount); }, [&] { (void)twoSegments(a, rowCount); }}, repeats);
  c.rowSumOneStreamGBs = 4.0 * static_cast<double>(rowCount * rowCols) / s[0] / 1e9;
  c.rowSumTwoSegmentsGBs = 4.0 * static_cast<double>(rowCount * rowCols) / s[1] / 1e9;
  c.rowSumSegments = c.rowSumTwoSegmentsGBs >= kClearSegmentsWin * c.rowSumOneStreamGBs ? 2 : 1;
}

constexpr int kWarmCopySweeps = 3;

// The plain and the streaming copy, each repeated over the same two arrays, at footprints (bytes read +
// written) of 2 to 256 MiB: the warm-copy curve. Footprints past the two arrays' `maxElements` are not
// measured. The footprints are swept `sweeps` times and each point is the median of its sweeps: a
// disturbance of a second or two (this host's neighbours) then spoils one sweep of a point, not the
// point. One sweep had put 7 GB/s at 48 MiB between 58 at 32 and 54 at 64, and the model priced every
// eager plan of that footprint at it (docs/cpu.md, "Calibration").
template <typename Plain, typename Streaming>
std::vector<WarmCopyPoint> warmCopyCurve(int64_t maxElements, int sweeps, Plain plainS, Streaming streamingS) {
  std::vector<int64_t> footprints;
  for (int64_t mib : {2, 4, 8, 16, 32, 48, 64, 96, 128, 192, 256})
    if ((mib << 20) / 8 <= maxElements) footprints.push_back(mib << 20);
  std::vector<std::vector<double>> plain(footprints.size()), streaming(footprints.size());
  for (int sweep = 0; sweep < sweeps; ++sweep)
    for (size_t i = 0; i < footprints.size(); ++i) {
      int64_t elements = footprints[i] / 8 / 2048 * 2048;  // half read, half written, whole rows
      plain[i].push_back(plainS(elements));
      streaming[i].push_back(streamingS(elements));
    }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::vector<WarmCopyPoint> curve;
  for (size_t i = 0; i < footprints.size(); ++i) {
    double bytes = 8.0 * static_cast<double>(footprints[i] / 8 / 2048 * 2048);
    curve.push_back(WarmCopyPoint{footprints[i], bytes / median(plain[i]) / 1e9, bytes / median(streaming[i]) / 1e9});
  }
  return curve;
}

// The copy a cold run sees: each call after the eviction `gir run --measure --cold` makes before each
// call (writing twice the last-level cache, CpuLauncher.h), over a 64 MiB footprint, or the arrays when
// smaller (the DRAM-scale scenarios' are 34-270 MiB; on this project's machine the rate was flat over
// 16-256 MiB). On 2026-11-27 it was 20-26 GB/s where STREAM copy over 2 x 256 MiB gave 11-17: the
// eviction leaves the written lines in the cache, and their write-back falls outside the timed call
// (docs/cpu.md, "Calibration").
template <typename Copy>
double coldCopyGBs(int64_t maxElements, Copy copy, int calls) {
  const int64_t elements = std::min((int64_t{64} << 20) / 8, maxElements);  // half read, half written
  TimingOptions cold;
  cold.flushBytes = coldCacheBytes();
  cold.warmup = 0;
  cold.minRepeats = cold.maxRepeats = calls;
  Timing t = timeCalls([&] { copy(elements); }, cold);
  return 8.0 * static_cast<double>(elements) / (t.medianUs * 1e-6) / 1e9;
}

}  // namespace

int64_t streamingCrossover(const std::vector<WarmCopyPoint>& curve) {
  for (size_t i = 0; i < curve.size(); ++i) {
    if (curve[i].streamingGBs < kClearStreamingWin * curve[i].plainGBs) continue;
    return i > 0 ? curve[i - 1].footprintBytes : curve[0].footprintBytes / 2;
  }
  return 0;
}

std::string Calibration::str() const {
  std::ostringstream os;
  os << "threads " << threads << ": stream copy " << streamCopyGBs << " GB/s (p10 " << streamCopyP10GBs << ", p90 " << streamCopyP90GBs
     << "), read " << streamReadGBs << " GB/s, tile " << tileGBs
     << " GB/s, local " << localGBs << " GB/s, exp " << transcendentalGelems << " G/s, barrier " << barrierUs << " us, launch " << launchUs
     << " us, streaming-store copy " << streamingCopyGBs << " GB/s, streaming stores above " << (streamStoreAboveBytes >> 10)
     << " KiB, cold copy " << coldCopyGBs << " GB/s, row sums " << rowSumOneStreamGBs << " GB/s in one stream and "
     << rowSumTwoSegmentsGBs << " in two segments (" << rowSumSegments << " chosen)";
  os << "\ntranscendentals (G/s):";
  for (const auto& [function, rate] : transcendentalGelemsByFunction) os << " " << function << " " << rate << ";";
  os << "\nwarm copy (footprint MiB: plain / streaming GB/s):";
  for (const WarmCopyPoint& p : warmCopy) os << " " << (p.footprintBytes >> 20) << ": " << p.plainGBs << " / " << p.streamingGBs << ";";
  return os.str();
}

Expected<Calibration> calibrate(const CalibrationOptions& o) {
  CompileOptions co = o.compile;
  co.optLevel = "-O3";
  auto obj = compileSource(std::string(cpuPrelude()) + kBenchSource + std::string(wideVectorsBegin()) + transcendentalSource() +
                               std::string(wideVectorsEnd()) + kBenchTail, co);
  if (!obj) return obj.takeError();
  auto lib = loadLibrary(obj->objectPath);
  if (!lib) return lib.takeError();
  auto setThreads = reinterpret_cast<void (*)(int)>(lib->symbol("gir_set_threads"));
  auto threads = reinterpret_cast<int (*)()>(lib->symbol("cal_threads"));
  auto init = reinterpret_cast<void (*)(float*, int64_t, float)>(lib->symbol("cal_init"));
  auto copy = reinterpret_cast<void (*)(float*, const float*, int64_t)>(lib->symbol("cal_copy"));
  auto read = reinterpret_cast<float (*)(const float*, int64_t)>(lib->symbol("cal_read"));
  auto cacheCopy = reinterpret_cast<void (*)(int64_t, int)>(lib->symbol("cal_cache_copy"));
  auto barriers = reinterpret_cast<void (*)(int)>(lib->symbol("cal_barriers"));
  auto launches = reinterpret_cast<void (*)(int)>(lib->symbol("cal_launches"));
  auto streamCopy = reinterpret_cast<void (*)(float*, const float*, int64_t)>(lib->symbol("cal_copy_stream"));
  auto rowSumsOneStream = reinterpret_cast<RowSums>(lib->symbol("cal_row_sums_one_stream"));
  auto rowSumsTwoSegments = reinterpret_cast<RowSums>(lib->symbol("cal_row_sums_two_segments"));
  auto rowSumColumns = reinterpret_cast<int64_t (*)()>(lib->symbol("cal_row_sum_columns"));
  if (!setThreads || !threads || !init || !copy || !read || !cacheCopy || !barriers || !launches || !streamCopy || !rowSumsOneStream ||
      !rowSumsTwoSegments || !rowSumColumns)
    return makeError(obj->objectPath + " lacks the calibration entry points");
  if (o.threads > 0) setThreads(o.threads);
  Calibration c;
  c.threads = threads();
  int64_t n = o.dramArrayBytes / 4;
  // The same arrays as the kernels' buffers (huge pages included), so the roof is measured as they run.
  auto ownedA = allocateHostArray(n), ownedB = allocateHostArray(n);
  if (!ownedA || !ownedB) return makeError("cannot allocate two " + std::to_string(o.dramArrayBytes) + "-byte arrays for the calibration");
  HostArray& a = *ownedA;
  HostArray& b = *ownedB;
  init(a.get(), n, 0.0f);
  init(b.get(), n, 1.0f);
  auto copyS = sortedSeconds([&] { copy(a.get(), b.get(), n); }, o.repeats);
  double readS = medianSeconds([&] { (void)read(b.get(), n); }, o.repeats);
  auto copyGBs = [&](size_t i) { return 8.0 * static_cast<double>(n) / copyS[i] / 1e9; };
  c.streamCopyGBs = copyGBs(copyS.size() / 2);
  c.streamCopyP10GBs = copyGBs(copyS.size() * 9 / 10);  // the slower tenth: lower bandwidth
  c.streamCopyP90GBs = copyGBs(copyS.size() / 10);
  c.streamReadGBs = 4.0 * static_cast<double>(n) / readS / 1e9;
  measureRowSums(c, rowSumsOneStream, rowSumsTwoSegments, rowSumColumns(), b.get(), n, o.repeats);
  auto streamS = sortedSeconds([&] { streamCopy(a.get(), b.get(), n); }, o.repeats);
  c.streamingCopyGBs = 8.0 * static_cast<double>(n) / streamS[streamS.size() / 2] / 1e9;
  // As many calls as one sweep of o.repeats: kWarmCopySweeps sweeps of a third each (at least 3 calls).
  int perSweep = std::max(3, o.repeats / kWarmCopySweeps);
  c.warmCopy = warmCopyCurve(n, kWarmCopySweeps, [&](int64_t m) { return medianSeconds([&] { copy(a.get(), b.get(), m); }, perSweep); },
                             [&](int64_t m) { return medianSeconds([&] { streamCopy(a.get(), b.get(), m); }, perSweep); });
  c.streamStoreAboveBytes = streamingCrossover(c.warmCopy);
  c.coldCopyGBs = coldCopyGBs(n, [&](int64_t m) { copy(a.get(), b.get(), m); }, std::max(5, o.repeats / kWarmCopySweeps));
  const int passes = 200;
  int64_t tileN = o.tileArrayBytes / 4, localN = o.localArrayBytes / 4;
  double tileS = medianSeconds([&] { cacheCopy(tileN, passes); }, o.repeats);
  double localS = medianSeconds([&] { cacheCopy(localN, passes * 16); }, o.repeats);
  c.tileGBs = 8.0 * static_cast<double>(tileN) * passes * c.threads / tileS / 1e9;
  c.localGBs = 8.0 * static_cast<double>(localN) * passes * 16 * c.threads / localS / 1e9;
  // The functions interleaved (two back-to-back calibrations, function after function, gave sigmoid
  // 0.72 and 0.77 of exp).
  const int transcendentalPasses = 400;
  std::vector<std::string> names;
  std::vector<std::function<void()>> evaluations;
  for (const TranscendentalCall& call : transcendentalCalls(kTranscendentalArgument)) {
    auto evaluate = reinterpret_cast<void (*)(int64_t, int)>(lib->symbol(transcendentalEntry(call.function)));
    if (!evaluate) return makeError(obj->objectPath + " lacks " + transcendentalEntry(call.function));
    names.push_back(call.function);
    evaluations.push_back([evaluate, localN] { evaluate(localN / 2, transcendentalPasses); });
  }
  std::vector<double> evaluationS = interleavedMedianSeconds(evaluations, o.repeats);
  for (size_t f = 0; f < names.size(); ++f)
    c.transcendentalGelemsByFunction[names[f]] = static_cast<double>(localN / 2) * transcendentalPasses * c.threads / evaluationS[f] / 1e9;
  c.transcendentalGelems = c.transcendentalGelemsByFunction["exp"];
  const int reps = 2000;
  double launchS = medianSeconds([&] { launches(reps); }, o.repeats);
  double barrierS = medianSeconds([&] { barriers(reps); }, o.repeats);
  c.launchUs = launchS / reps * 1e6;
  // One region holding `reps` barriers: take the region's own start and end off.
  c.barrierUs = std::max(0.0, (barrierS - launchS / reps) / reps * 1e6);
  return c;
}

HardwareDesc applyCalibration(HardwareDesc hw, const Calibration& c) {
  for (MemoryLevelDesc& l : hw.levels) {
    if (l.scope == Scope::Device) l.bandwidthGBs = c.streamCopyGBs;
    if (l.scope == Scope::Block) l.bandwidthGBs = c.tileGBs;
    if (l.scope == Scope::Unit || l.scope == Scope::Lane) l.bandwidthGBs = c.localGBs;
  }
  hw.syncCostUs[static_cast<int>(Scope::Device)] = c.barrierUs;
  hw.syncCostUs[static_cast<int>(Scope::Block)] = 0;
  hw.launchCostUs = c.launchUs;
  hw.transcendentalGelems = c.transcendentalGelems;
  hw.transcendentalGelemsByFunction = c.transcendentalGelemsByFunction;
  hw.streamStoreAboveBytes = c.streamStoreAboveBytes;
  hw.rowSumSegments = c.rowSumSegments;
  hw.warmCopy = c.warmCopy;
  hw.coldCopyGBs = c.coldCopyGBs;
  hw.readToCopyRatio = c.streamCopyGBs > 0 ? c.streamReadGBs / c.streamCopyGBs : 0;
  hw.maxUnits = c.threads;
  return hw;
}

}  // namespace gir::codegen::cpu
