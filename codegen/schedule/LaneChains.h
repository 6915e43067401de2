// Lane chains (docs/gpu.md, "Lane chains"): the loop fusion of a target whose unit runs a node as one
// lane loop (CUDA/HIP: element e = W t + lane - shift over W lanes). Consecutive nodes of a kernel's
// program that walk the same lane loop (the same element count and register shift) run as one loop, so
// each element goes through the whole chain while it is in a register. A per-unit buffer written by one
// node of a chain and read only inside it, at the element it was written, becomes a value: no array.
// The lane-loop counterpart of FusedLoops.h (loop nests, the CPU's): both read only the schedule.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "codegen/schedule/Schedule.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

struct LaneChain {
  size_t begin = 0, end = 0;  // positions in the kernel's node list, [begin, end), at least two nodes
  int64_t elements = 0;       // N: elements per unit of every node's output
  int64_t shift = 0;          // the output's register slot shift (rel % W), the same for every node
};

struct KernelChains {
  std::vector<LaneChain> chains;    // in kernel order, disjoint
  std::set<uint32_t> valueBuffers;  // register buffers that need no array (ids)
};

// The chains of kernel `kernel`'s program, for units of `lanes` lanes.
KernelChains findLaneChains(const Graph& g, const Schedule& s, int kernel, int64_t lanes);

// Whether a slice's elements sit at consecutive displacements (every non-trivial dim dense, row-major).
bool isDenseSlice(const MemorySlice& s);
// Whether a buffer's instances are per unit (a GPU lane's registers).
bool isPerUnit(Placement p);

// Whether a node writes a buffer it reads other than element for element (then it must read all
// of its input before it writes, and cannot share a loop with anything).
bool overwritesWhatItReads(const Graph& g, const Node& n);

}  // namespace gir::codegen
