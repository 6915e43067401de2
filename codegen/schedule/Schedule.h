// The schedule of a GIR-Graph: the graph reordered into kernels (split at device syncs), stages
// (split at block syncs, run by every unit of a block in turn) and a placement per buffer
// (docs/cpu.md, "The schedule": reorder the graph into a schedule, then emit per target).
//
// One schedule for every back end: a CPU thread running a block of units and a CUDA/HIP block of
// warps both execute kernel by kernel, stage by stage, and need to know where each buffer's
// instances live. The CPU renders the stages, the GPU renders each kernel's program with its
// barriers; both read the same placement, decided here from the few storage facts a target states
// (ScheduleTarget). The schedule says nothing about loops inside a node (codegen/schedule/LoopNest.h
// does); Ascend's phases come from the same levelling (codegen/schedule/Levels.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

// Where a buffer's storage lives when a block's units run one after another on one worker.
// On a GPU the two per-unit placements are a lane's registers, PerBlock is `__shared__` memory.
enum class Placement {
  Global,         // one array of the buffer's full logical size, shared by all workers
  PerUnit,        // one instance per unit, live only inside one stage: a small array per unit
  PerBlockUnits,  // one instance per unit, live across the stages of one kernel: kept for all units of the block
  PerBlock,       // one instance per block (block-scope levels): the block's scratch
};

// What a back end's on-chip storage can hold: the only target facts the placement reads. A buffer
// that breaks one of them is placed Global, with the broken rule as its reason.
struct ScheduleTarget {
  std::string name = "cpu";
  int64_t lanes = 1;               // a unit's lanes; a per-unit instance is spread over them
  int64_t maxSlotsPerLane = 0;     // a per-unit instance holds at most lanes x this many elements (0: no limit)
  int64_t maxBlockBytes = 0;       // a per-block instance holds at most this many bytes (0: no limit)
  // Every slice of a per-unit instance sits at one fixed place inside it (Schedule::sliceRel) and is
  // written densely: a GPU lane indexes its register array with constants.
  bool fixedUnitSlices = false;

  static ScheduleTarget cpu() { return {}; }
  // CUDA and HIP: registers (256 per lane before they spill anyway) and 48 KiB of static shared memory.
  static ScheduleTarget gpu(const std::string& name, int64_t lanes) { return {name, lanes, 256, 48 * 1024, true}; }
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
  // affine: an instance's first element is loStride * instance + loBase. A per-unit buffer need not
  // be: a unit's instance is private, so slices at fixed places in it (sliceRel) are enough.
  bool affine = false;
  int64_t loStride = 0, loBase = 0;
  std::string why;           // one sentence: why this placement (for the emitted comment and the docs)
};

// Nodes run, in this order, by each unit of a block before any unit starts the next stage.
struct Stage {
  std::vector<NodeId> nodes;  // topological order, syncs left out
};

struct KernelSchedule {
  int index = 0;
  std::vector<Stage> stages;     // separated by block syncs
  std::vector<NodeId> program;   // the same nodes in topological order, with the kernel's block, unit and lane syncs
  int blockSyncs = 0;            // block-scope sync nodes inside this kernel
};

struct Schedule {
  int64_t units = 0, unitsPerBlock = 1, blocks = 0;
  std::vector<KernelSchedule> kernels;  // separated by device syncs
  std::vector<BufferPlan> buffers;      // one per buffer id (erased buffers: Global, unused)
  std::vector<int> kernelOf;            // per node id: kernel index, -1 for device syncs and erased nodes
  std::vector<int> stageOf;             // per node id: stage inside its kernel, -1 when not scheduled
  // Per slice on a per-unit or per-block buffer: its offset minus its instance's first element, when
  // that is the same for every unit that runs it (0 otherwise, and for slices of global buffers).
  std::vector<int64_t> sliceRel;
};

// What one buffer's instances (units, or blocks) touch over every live non-sync node's accesses: per
// instance its first and last flat element (first > last when untouched). The placement above and
// Ascend's per-unit UB tiles are both laid out from it.
struct InstanceFootprint {
  std::vector<int64_t> first, last;
  std::vector<std::pair<SliceId, NodeId>> uses;
  bool touched(size_t i) const { return first[i] <= last[i]; }
  int64_t largest() const;  // elements of the largest touched instance
};
InstanceFootprint instanceFootprint(const Graph& g, BufferId b, bool perUnit);

// Fails (naming the node) on a cycle or a node kind the schedule cannot order.
Expected<Schedule> buildSchedule(const Graph& g, const ScheduleTarget& target = ScheduleTarget::cpu());

// The level's scope for a buffer (Device when the level is undeclared).
Scope bufferScope(const Graph& g, BufferId b);

}  // namespace gir::codegen
