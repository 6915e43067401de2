// The Measure tab's figures (docs/app.md, "Measure"), read from what `gir run FILE.gir --measure --json`
// prints. The app runs that command in a child process instead of timing in its own: the times are the
// command line's by construction (same binary, same OpenMP wait policy, no GUI threads in the process), a
// generated kernel that crashes takes down the child and not the app, and cancel kills the child.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/cpu/CpuLauncher.h"
#include "codegen/cpu/CpuModel.h"
#include "core/Expected.h"

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
  std::vector<KernelMeasure> kernels;  // empty when the outputs did not match (nothing is timed then)
  ModelError error;
  double maxRelativeOutputError = 0;  // compiled outputs against the interpreter's
  bool outputsMatch = false;
  std::string hardware;
  double streamCopyGBs = 0;  // the description's DRAM bandwidth
};

// Parses the JSON of `gir run FILE.gir --measure --json` (one candidate, planner "file").
Expected<MeasureResult> measureResultFromRunJson(const std::string& json);

}  // namespace gir::codegen::cpu
