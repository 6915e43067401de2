// The schedule of a GIR-Graph: the graph reordered into kernels (split at device syncs), stages
// (split at block syncs, run by every unit of a block in turn) and a placement per buffer
// (docs/cpu.md, "The schedule": reorder the graph into a schedule, then emit per target).
//
// Target-neutral: a CPU thread running a block of units, or a CUDA block of warps, both execute
// kernel by kernel, stage by stage, and need to know where each buffer's instances live. The
// schedule says nothing about loops inside a node (codegen/schedule/LoopNest.h does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

// Where a buffer's storage lives when a block's units run one after another on one worker.
enum class Placement {
  Global,         // one array of the buffer's full logical size, shared by all workers
  PerUnit,        // one instance per unit, live only inside one stage: a small array per unit
  PerBlockUnits,  // one instance per unit, live across the stages of one kernel: kept for all units of the block
  PerBlock,       // one instance per block (block-scope levels): the block's scratch
};

std::string_view placementName(Placement p);

// An instance (a unit or a block) touches the flat buffer indices [lo, lo + size) where
// lo = loStride * instance + loBase; `size` is the largest footprint of any instance.
struct BufferPlan {
  BufferId buffer;
  Placement placement = Placement::Global;
  bool deviceLevel = false;  // the buffer's level is shared by the whole device (DRAM)
  bool used = false;         // some gOperator (not only a sync) reads or writes it
  int kernel = -1;           // the one kernel using a non-global buffer
  int64_t instanceSize = 0;  // elements per instance (non-global placements)
  int64_t loStride = 0, loBase = 0;
  std::string why;           // one sentence: why this placement (for the emitted comment and the docs)
};

// Nodes run, in this order, by each unit of a block before any unit starts the next stage.
struct Stage {
  std::vector<NodeId> nodes;  // topological order, syncs left out
};

struct KernelSchedule {
  int index = 0;
  std::vector<Stage> stages;  // separated by block syncs
  int blockSyncs = 0;         // block-scope sync nodes inside this kernel
};

struct Schedule {
  int64_t units = 0, unitsPerBlock = 1, blocks = 0;
  std::vector<KernelSchedule> kernels;  // separated by device syncs
  std::vector<BufferPlan> buffers;      // one per buffer id (erased buffers: Global, unused)
  std::vector<int> kernelOf;            // per node id: kernel index, -1 for device syncs and erased nodes
  std::vector<int> stageOf;             // per node id: stage inside its kernel, -1 when not scheduled
};

// Fails (naming the node) on a cycle or a node kind the schedule cannot order.
Expected<Schedule> buildSchedule(const Graph& g);

// The level's scope for a buffer (Device when the level is undeclared).
Scope bufferScope(const Graph& g, BufferId b);

}  // namespace gir::codegen
