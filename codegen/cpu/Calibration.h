// Calibration of the cpu-host description on the machine at hand (docs/cpu.md, "Calibration"; docs/hardware.md):
// microbenchmarks, compiled by the same compiler and flags as generated kernels, measure STREAM-style
// copy and read bandwidth on DRAM-sized arrays, the bandwidth of a thread's cache-sized scratch (the
// `tile` level) and of an L1-sized array (`local`), the rate on L1 data of every function kernels call
// for a transcendental (girExp, girSigmoid, girOnePlusErf, ...), the cost of a barrier (device sync between two parallel loops) and of a parallel
// region (a launch), and the footprint above which streaming stores beat plain ones.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codegen/cpu/CpuCompiler.h"
#include "core/Expected.h"
#include "core/hw/HardwareDesc.h"

namespace gir::codegen::cpu {

struct CalibrationOptions {
  CompileOptions compile;
  int threads = 0;                 // 0: OpenMP's default
  // Per array; 8x a 32 MiB last-level cache. With 64 MiB arrays two back-to-back runs gave 52.6 and
  // 88.1 GB/s (issue #16); STREAM over 256 MiB gave 83-84 both times.
  int64_t dramArrayBytes = int64_t{256} << 20;
  int64_t tileArrayBytes = 256 << 10; // per thread; an L2-sized scratch
  int64_t localArrayBytes = 16 << 10; // per thread; an L1-sized array
  int repeats = 15;                // median of this many
};

struct Calibration {
  double streamCopyGBs = 0;  // (read + write) bytes / time, 2 x 4 bytes per element
  double streamCopyP10GBs = 0, streamCopyP90GBs = 0;  // the spread over the repeats
  double streamReadGBs = 0;
  double tileGBs = 0;        // per-thread cache-resident copy, all threads together
  double localGBs = 0;
  double barrierUs = 0;      // one omp barrier among the threads
  double launchUs = 0;       // one parallel region with an omp for over as many iterations as threads
  double transcendentalGelems = 0;  // girExp evaluations per second on L1 data, all threads, in billions
  std::map<std::string, double> transcendentalGelemsByFunction;  // the same per function kernels call (HardwareDesc.h)
  double streamingCopyGBs = 0;      // the copy with streaming stores, a 64-byte line at a time, as kernels write streamed outputs
  int64_t streamStoreAboveBytes = 0;  // footprint above which that copy beats the plain one (0: never)
  // A lone row sum over rows of 4,096 floats read front to back and as two halves side by side
  // (read bytes / time), and the segments that won by kClearSegmentsWin (docs/cpu.md, "Two segments").
  double rowSumOneStreamGBs = 0, rowSumTwoSegmentsGBs = 0;
  int rowSumSegments = 1;
  std::vector<WarmCopyPoint> warmCopy;  // both copies repeated over the same arrays, at 2 to 256 MiB
  double coldCopyGBs = 0;  // a 64 MiB-footprint copy right after the eviction `--measure --cold` makes
  int threads = 0;
  std::string str() const;
};

Expected<Calibration> calibrate(const CalibrationOptions& options = {});

// The footprint above which streaming stores pay, from the warm-copy curve: the point before the first
// at which the streaming copy beats the plain one by kClearStreamingWin (half the first footprint when
// that is the first point; 0 when none does). Copies that stay cached between calls gain nothing from
// streaming stores, which send them to memory. The first clear win decides, not the last point where the
// plain copy still won: on 2026-11-27 one calibration measured streaming 15.7 GB/s against plain 20.5 at
// 256 MiB (and 35.4 against 26.2 at 128 MiB), and "the largest footprint where plain wins" put the
// threshold at 256 MiB, so no scenario streamed in that benchmark run.
constexpr double kClearStreamingWin = 1.1;

// Two segments per row where they read at least this much faster than one stream; one stream otherwise,
// where the machine's prefetchers follow a row front to back at least as well (docs/cpu.md, "Two segments").
constexpr double kClearSegmentsWin = 1.05;
int64_t streamingCrossover(const std::vector<WarmCopyPoint>& curve);

// A copy of `base` with the measured figures written in: dram, tile and local bandwidths (levels by
// scope), the transcendental rate, the streaming-store threshold, a lone row sum's segments, the
// warm-copy curve and the cold copy, the device sync (barrier) and launch costs, max_units = threads.
// Block syncs stay free: a block's units run in turn on one thread.
HardwareDesc applyCalibration(HardwareDesc base, const Calibration& c);

}  // namespace gir::codegen::cpu
