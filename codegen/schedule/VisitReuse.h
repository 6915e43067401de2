// Device reads that a worker has just made (docs/cpu.md, "Reads the last visits made"). A stride-2
// convolution's unit reads three input rows, and the unit its worker visits next reads the last of
// them again: in GIR that is device traffic (the instrumented count sees it), but the line is still
// in the worker's cache. This finds, per device buffer, which share of a kernel's read lines the
// visits just before already read, by walking the first visits of the kernel's first worker in the
// block order the emitters use. Target-neutral: a cost model decides what that share costs.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "codegen/schedule/Schedule.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

// One device read as the emitted loops make it: the slice, on every unit of the domain.
struct DeviceRead {
  SliceId slice;
  UnitDomain domain;
};

struct VisitReuseOptions {
  int64_t lineBytes = 64;
  // The lines the visits before keep: what a worker's cache holds of them (half the block-scope
  // level's capacity, say). The oldest visits' lines leave first.
  int64_t windowBytes = 512 << 10;
  // The walk stops after this many visits or this many line touches, whichever comes first; a unit
  // whose reads would pass the touches left is cut short there (its first lines count).
  int64_t maxVisits = 256;
  int64_t maxLineTouches = int64_t{1} << 18;
};

// Per device buffer (by id) read in `reads`: the fraction, in [0, 1], of its line reads over the
// walked visits that the window of earlier visits had read already.
std::map<uint32_t, double> revisitedReadShare(const Graph& g, const Schedule& s, const KernelSchedule& k,
                                              const std::vector<DeviceRead>& reads, const VisitReuseOptions& o = {});

}  // namespace gir::codegen
