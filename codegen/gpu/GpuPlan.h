// The GPU mapping of a GIR-Graph (docs/gpu.md, "The mapping"; paper section 7): which kernel runs each node,
// and where each buffer lives. A unit is a warp (32 lanes) or a wavefront (64); device syncs split
// kernels; unit-scoped levels become per-lane register arrays, block-scoped levels `__shared__`
// arrays, and anything the register or shared mapping cannot hold falls back to global memory.
#pragma once

#include <string>
#include <vector>

#include "codegen/gpu/GpuTarget.h"
#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::gpu {

enum class Placement {
  Global,     // a kernel parameter: dram buffers, and reg/smem buffers spilled to a global scratch array
  Shared,     // `__shared__ float name[extent]`, one instance per block
  Registers,  // `float name[slots]` per lane: unit-relative element q lives in lane q % lanes, slot q / lanes
};

struct BufferPlan {
  Placement placement = Placement::Global;
  std::string ident;        // C identifier in the emitted code
  bool spilled = false;     // a unit- or block-level buffer the mapping moved to global memory
  std::string spillReason;  // why, for the emitted comment and the docs
  int kernel = -1;          // for Shared/Registers: the one kernel that touches the buffer
  // Registers: elements of one unit's instance and slots per lane.
  int64_t unitExtent = 0, slots = 0;
  // Shared: the block's first element is blockScale * block + blockBase; blockExtent elements.
  int64_t blockScale = 0, blockBase = 0, blockExtent = 0;
};

struct GpuPlan {
  Graph graph;  // the compacted input graph; every id below refers to it
  GpuTarget target;
  std::vector<std::vector<NodeId>> kernels;  // per kernel: its nodes (no device syncs) in schedule order
  std::vector<int> kernelOf;                 // per node; -1 for device syncs
  std::vector<BufferPlan> buffers;           // per buffer
  std::vector<int64_t> sliceRel;             // per slice on a Registers buffer: offset(u) - unit base (constant)
  int sunkNodes = 0;                         // nodes moved to the kernel of their first consumer
};

// Fails (naming the node or buffer) when the graph does not verify or cannot run on the target:
// a block larger than the target allows, a buffer beyond 32-bit indexing.
Expected<GpuPlan> planGpu(const Graph& g, const GpuTarget& target);

// Flat element e of a slice as a displacement from its offset: sum over dims of index * stride.
int64_t sliceDisplacement(const MemorySlice& s, int64_t e);
// Whether element e sits at displacement e (every non-trivial dim dense, row-major).
bool isDenseSlice(const MemorySlice& s);

}  // namespace gir::gpu
