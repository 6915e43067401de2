// The Measure tab's work (docs/app.md, "Tabs", Measure): compile a GIR-Graph for this machine's CPU (the
// codegen/cpu launcher), check it against the interpreter, time each kernel alone, and pair the
// times with the CPU cost model's per-kernel figures and its error figures. Pure C++; the app runs
// it on a worker thread, polling `cancel` between the stages and reporting each stage.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "codegen/cpu/CpuLauncher.h"
#include "codegen/cpu/CpuModel.h"
#include "core/Expected.h"
#include "core/gir/Graph.h"
#include "core/hw/HardwareDesc.h"

namespace gir::codegen::cpu {

struct KernelMeasure {
  int kernel = 0;
  double modelledUs = 0;
  Timing measured;
  double errorPercent = 0;  // (modelled - measured) / measured x 100
  // The roofline: the kernel's device bytes over its measured time, against the description's DRAM
  // bandwidth (STREAM copy once calibrated).
  int64_t dramBytes = 0;
  double measuredGBs = 0;
  double fractionOfStream = 0;
};

struct MeasureResult {
  std::vector<KernelMeasure> kernels;
  ModelError error;
  double maxRelativeOutputError = 0;  // compiled outputs against the interpreter's
  bool outputsMatch = false;
  std::string hardware;
  double streamCopyGBs = 0;  // the description's DRAM bandwidth
};

struct MeasureOptions {
  LaunchOptions launch;
  TimingOptions timing;
};

// progress(stage, total, what) is called before each stage (from the calling thread).
using MeasureProgress = std::function<void(int, int, const std::string&)>;

Expected<MeasureResult> measureOnCpu(const Graph& g, const HardwareDesc& hw, const MeasureOptions& options,
                                     const std::atomic<bool>* cancel, const MeasureProgress& progress);

}  // namespace gir::codegen::cpu
