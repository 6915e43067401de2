// The GPU rendering of a GIR-Graph's schedule (docs/gpu.md, "The mapping"; paper section 7): the
// schedule (codegen/schedule/Schedule.h, built for the target's lanes and on-chip limits) decides the
// kernels, their node order and every buffer's placement; this names them in CUDA/HIP terms. A unit is
// a warp (32 lanes) or a wavefront (64); a per-unit buffer is a per-lane register array, a per-block
// one a `__shared__` array, and anything the schedule placed globally is a kernel parameter.
#pragma once

#include <string>
#include <vector>

#include "codegen/gpu/GpuTarget.h"
#include "codegen/schedule/Schedule.h"
#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::gpu {

enum class Placement {
  Global,     // a kernel parameter: dram buffers, and reg/smem buffers the schedule kept global
  Shared,     // `__shared__ float name[extent]`, one instance per block
  Registers,  // `float name[slots]` per lane: unit-relative element q lives in lane q % lanes, slot q / lanes
};

struct BufferPlan {
  Placement placement = Placement::Global;
  std::string ident;        // C identifier in the emitted code
  bool spilled = false;     // a unit- or block-level buffer the schedule placed in global memory
  std::string spillReason;  // why (the schedule's reason), for the emitted comment and the docs
  int kernel = -1;          // for Shared/Registers: the one kernel that touches the buffer
  // Registers: elements of one unit's instance and slots per lane.
  int64_t unitExtent = 0, slots = 0;
  // Shared: the block's first element is blockScale * block + blockBase; blockExtent elements.
  int64_t blockScale = 0, blockBase = 0, blockExtent = 0;
};

struct GpuPlan {
  Graph graph;  // the compacted input graph; every id below refers to it
  GpuTarget target;
  codegen::Schedule schedule;                // built with ScheduleTarget::gpu(target)
  std::vector<std::vector<NodeId>> kernels;  // per kernel: the schedule's program (no device syncs)
  std::vector<BufferPlan> buffers;           // per buffer
  std::vector<int64_t> sliceRel;             // per slice on a Registers buffer: offset(u) - unit base (constant)
};

// Fails (naming the node or buffer) when the graph does not verify or cannot run on the target:
// a block larger than the target allows, a buffer beyond 32-bit indexing.
Expected<GpuPlan> planGpu(const Graph& g, const GpuTarget& target);

// Flat element e of a slice as a displacement from its offset: sum over dims of index * stride.
int64_t sliceDisplacement(const MemorySlice& s, int64_t e);

}  // namespace gir::gpu
