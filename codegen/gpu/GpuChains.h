// Lane chains (docs/gpu.md, "Lane chains"): consecutive nodes of a kernel that walk the same lane loop
// (element e = W t + lane - shift, the same element count) run as one loop, so each element goes
// through the whole chain while it is in a register. A register buffer written by one node of a chain
// and read only inside it, at the element it was written, becomes a value: no array, no slots.
// The GPU counterpart of the CPU's loop fusion (codegen/schedule/FusedLoops.h), which decides on
// loop nests; here the loop is the lane loop of the mapping.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "codegen/gpu/GpuPlan.h"

namespace gir::gpu {

struct LaneChain {
  size_t begin = 0, end = 0;  // positions in the kernel's node list, [begin, end), at least two nodes
  int64_t elements = 0;       // N: elements per unit of every node's output
  int64_t shift = 0;          // the output's register slot shift (rel % W), the same for every node
};

struct KernelChains {
  std::vector<LaneChain> chains;    // in kernel order, disjoint
  std::set<uint32_t> valueBuffers;  // register buffers that need no array (ids)
};

KernelChains findLaneChains(const GpuPlan& p, int kernel);

// Whether a node writes a buffer it reads other than element for element (then it must read all
// of its input before it writes, and cannot share a loop with anything).
bool overwritesWhatItReads(const Graph& g, const Node& n);

}  // namespace gir::gpu
