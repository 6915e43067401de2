// Lowering a GIR-Graph to one AI Core's .asck program (issue 8, last point; docs/ascend.md,
// "The contract"): units become loop iterations on the core, syncs that data crosses units through
// split the units into phases (one loop nest after the other), per-unit slices become UB tiles
// (double-buffered), MTE2 loads GM -> UB, V computes in UB, MTE3 stores UB -> GM. The output has no sync
// lines: the insertion pipeline (sync/FlagInsertion.h) adds them and the oracle (AsckOracle.h) judges them.
// Decisions and results: docs/ascend.md, "From GIR".
//
// Four stages, each a free function with an inspectable result:
//   planUnitLoops  phases, unit segments and loop nests;
//   layoutBuffers  which .asck buffer holds which GIR buffer, tile sizes, double buffering, staging;
//   lowerGirToAsck the program and, per instruction, which GIR node, unit and slices it stands for;
//   checkLowering  element-level proof obligations against the GIR interpreter (FromGirCheck.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/ascend/asck/AsckOracle.h"
#include "codegen/ascend/asck/AsckProgram.h"
#include "codegen/ascend/asck/AsckTarget.h"
#include "codegen/ascend/sync/FlagInsertion.h"
#include "codegen/schedule/Phases.h"
#include "codegen/schedule/UnitLoops.h"
#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::ascend {

// What splits the unit loop into phases (one loop nest after the other): the schedule's phases.
using PhaseSplit = codegen::PhaseSplit;

struct FromGirOptions {
  std::string target = "ascend910";  // the kernel's `target` line
  PhaseSplit phases = PhaseSplit::Data;
  bool doubleBuffer = true;          // per-unit UB tiles get two slots when their loop runs 2+ iterations
  // lowerInsertAndJudge: when the flags ran short (merges), also try one slot and keep the faster program.
  bool keepFasterBuffering = true;
  int64_t ubCapacityBytes = 262144;  // UB of one AI Core (hardware/ascend910.json level "ub")
  // cycles= from bytes: the pipe's fixed latency plus bytes / rate; false keeps the pipes' defaults.
  bool sizedCycles = true;
  Target latencies;                    // fixed latency per pipe (the contract's defaults)
  int64_t mteBytesPerCycle = 32;       // GM <-> UB per core: 1200 GB/s / 32 cores at ~1 GHz, rounded down
  int64_t vectorBytesPerCycle = 256;   // the vector unit's 256-byte datapath
  std::map<std::string, std::string> tensorOf;  // GIR buffer name -> model tensor, for the header comment
};

// ---- Stage 1: units -> loop nests -----------------------------------------------------------------------

// Units as loop nests in which every u/k and u%k is affine: the schedule's (codegen/schedule/UnitLoops.h).
using UnitLoop = codegen::UnitLoop;
using UnitNest = codegen::UnitNest;

struct UnitPlan {
  std::vector<int> phaseOf;    // per node id; -1 for erased nodes
  int phases = 0;
  std::vector<NodeId> order;   // live non-sync nodes by (phase, topological position)
  // The same nodes with each load at its first consumer (LoadPlacement::AtFirstConsumer, the order the
  // GIR plan's capacity was checked in): what lowerPlanned falls back to when `order`'s early loads overflow UB.
  std::vector<NodeId> consumerOrder;
  // Per phase, the chain k1 | k2 | ... of the unit terms u/k, u%k and of tile indices in that phase.
  std::vector<std::vector<int64_t>> divisors;
  std::vector<UnitNest> nests;    // by phase, then by first unit
};

// Phases are the schedule's (codegen::phasesOf), over the order with loads early. PhaseSplit::Sync: the number
// of block (2+ units per block) or device syncs on the longest path into a node; unit and lane syncs need
// nothing, a unit's program order already holds them. PhaseSplit::Data: the longest path where an edge counts 1
// when an element passes between different units along it (read after write, write after read, write after
// write). Syncs that only order a unit with itself then cost no split: the row templates' per-op kernels run
// back to back per unit. A node with successors then moves to the latest phase they allow, so loads sit next
// to their consumers.
Expected<UnitPlan> planUnitLoops(const Graph& g, PhaseSplit split);
// The divisor chains and loop nests again, with `extraDivisors[phase]` joining that phase's offsets' divisors
// (layoutBuffers asks for the ones its tile indices need). planUnitLoops runs it with none.
Status nestUnitLoops(const Graph& g, UnitPlan& plan, const std::vector<std::vector<int64_t>>& extraDivisors);

// ---- Stage 2: buffers -----------------------------------------------------------------------------------

enum class LayoutKind {
  Global,     // a device-scope (or spilled) GIR buffer in GM, same element layout, tiles of `tileElems`
  SharedUb,   // a unit/block-scope GIR buffer used in several phases (or by several units): all of it in UB
  PrivateUb,  // a unit-scope GIR buffer used in one phase: one unit's footprint per slot, slots reused
  Staging,    // a UB tile for a compute node's GM operand (MTE2 loads it, or MTE3 stores it)
};
const char* layoutKindName(LayoutKind k);

// One GIR buffer or staging tile: a *member* of the .asck buffer `asck`. Without pooling every member has a
// .asck buffer of its own; with it, per-unit and staging members whose lifetimes do not overlap share one.
struct BufferLayout {
  LayoutKind kind = LayoutKind::Global;
  Buffer decl;                     // the member's own storage (bytes, tile= in bytes), as if unpooled
  int asck = -1;                   // the .asck buffer holding it (Layout::decls)
  BufferId gir;                    // Global/SharedUb/PrivateUb: the GIR buffer
  NodeId node;                     // Staging: the node and operand it serves
  int operand = -1;                // Staging: input number, or -1 for the output
  bool spilled = false;            // Global: a non-device GIR buffer kept in GM because UB could not hold it
  int64_t tileElems = 0;           // 0: whole-buffer references only (pooled: the pool's tile)
  int64_t slots = 1;               // PrivateUb and Staging: tiles reused round-robin (pooled: the pool's)
  std::vector<int64_t> unitBase;   // PrivateUb: first element of each unit's footprint (per unit)
};

struct Layout {
  std::vector<BufferLayout> buffers;  // members
  std::vector<Buffer> decls;          // the .asck buffers, in program order
  std::map<uint32_t, int> ofGir;      // GIR buffer id -> member
  std::map<std::pair<uint32_t, int>, int> staging;  // (node id, operand or -1) -> member
  std::map<std::pair<int, uint32_t>, AffineIndex> tileIndex;  // (nest, GIR slice) -> tile of a Global/SharedUb access
  int64_t ubBytes = 0;
  bool doubleBuffered = false;
  bool pooled = false;                // per-unit and staging members share UB pools by lifetime
  std::vector<std::string> notes;     // decisions worth a comment line (whole-buffer fallbacks, UB fit)
};

// GM buffers and shared UB buffers get the smallest tile size (a divisor of the element count) that holds
// every unit's access of every node in one tile, and per nest an affine tile index (else whole-buffer
// references). When UB cannot hold it all, per-unit and staging members are pooled by lifetime
// (poolByLifetime), then double buffering is dropped, then buffers kept whole in UB (they outlive a phase)
// are spilled to GM, largest first; fails when even that does not fit.
Expected<Layout> layoutBuffers(const Graph& g, const UnitPlan& plan, const FromGirOptions& opt);
// UB reuse (FromGirPool.cpp): a per-unit buffer lives from its first to its last node in plan.order (one phase,
// one unit's iteration), a staging tile at its node. Members whose lifetimes do not overlap share one .asck
// buffer (a pool, tile = the largest member), found by linear scan over the lifetimes. Sharing a name makes
// every reuse a region conflict, so the insertion orders the next member's writes after the last reads of
// the previous one; nothing is assumed about addresses the oracle cannot see. A pool has two slots when a
// member had them, unless UB cannot hold it: then the largest pools drop to one slot first. Recomputes
// decls, ubBytes and doubleBuffered.
void poolByLifetime(const Graph& g, const UnitPlan& plan, Layout& lay, int64_t ubCapacityBytes);
// Per phase, the unit divisors (tile / per-unit stride) those tiles need to be affine, for nestUnitLoops.
std::vector<std::vector<int64_t>> tileDivisors(const Graph& g, const UnitPlan& plan);

// ---- Stage 3: the program -------------------------------------------------------------------------------

enum class InstrRole {
  Main,      // the GIR node itself (reads its inputs, writes its output, possibly through staging)
  StageIn,   // MTE2: a GM input of a compute node (or of a GM -> GM move) into its staging tile
  StageOut,  // MTE3: a compute node's staged output to GM
};

// What one static instruction stands for. dsts/srcs parallel the instruction's region references.
struct InstrOrigin {
  NodeId node;
  InstrRole role = InstrRole::Main;
  int nest = 0;
  std::vector<SliceId> dsts, srcs;  // the GIR slice each reference holds (staging: the slice staged)
};

struct AsckLowering {
  Program program;
  UnitPlan plan;
  Layout layout;
  std::vector<InstrOrigin> origins;  // per instruction statement, in preorder
  std::vector<std::string> notes;    // the header comment: phases, nests, buffers, decisions
};

// The whole lowering. Errors (a GIR the mapping cannot express) name the node or buffer and the reason.
Expected<AsckLowering> lowerGirToAsck(const Graph& g, const FromGirOptions& opt);
// The same in two steps. prepareGir holds the interpreter runs (verifier, the memory checker's race-freedom,
// data phases) and depends only on the graph and opt.phases; lowerPlanned lays out and emits, so the
// lowerings of one graph with other buffering options or targets share the expensive part.
Expected<UnitPlan> prepareGir(const Graph& g, PhaseSplit phases);
Expected<AsckLowering> lowerPlanned(const Graph& g, const UnitPlan& plan, const FromGirOptions& opt);
// The .asck text with the notes as '#' comment lines above it (parses to the same program).
std::string printLowering(const AsckLowering& low);

// ---- Stage 4: the check ---------------------------------------------------------------------------------

// Replays the program in order on element provenance (which GIR write each element holds) and compares with
// the GIR interpreter on the same graph: every node runs once per unit of its domain, every read sees the
// write the interpreter's read sees, outputs end as the interpreter leaves them, and every instruction's
// elements lie inside its region reference (so the oracle's region conflicts cover every element conflict).
// With the oracle's verdict on the inserted program this shows the timed run computes what GIR computes.
Status checkLowering(const Graph& g, const AsckLowering& low);

// The interpreter's side of that comparison: one interpreter run, kept as one 64-bit hash per element (of the
// write it holds) and one digest per node, unit and operand read. Made once per graph and reused by every
// lowering of it; a differing digest is worded by running the interpreter again with exact provenance.
class LoweringReference {
 public:
  static Expected<LoweringReference> of(const Graph& g);  // g must outlive the reference
  struct Impl;

 private:
  friend Status checkLowering(const Graph& g, const AsckLowering& low, const LoweringReference& ref);
  std::shared_ptr<const Impl> impl_;
};
Status checkLowering(const Graph& g, const AsckLowering& low, const LoweringReference& ref);

// ---- All of it ------------------------------------------------------------------------------------------

struct FromGirRun {
  AsckLowering lowering;
  InsertResult inserted;  // set/wait for target.flags IDs per pipe pair
  OracleReport report;    // the oracle on the inserted program
};

// Lowers, checks the lowering (checkLowering), inserts set/wait and runs the oracle. An error is a GIR the
// mapping cannot express, a failed check or a failed insertion; an oracle violation is in the report. With
// keepFasterBuffering, a double-buffered program whose insertion had to merge flags is compared with the
// single-buffered one, and the one with fewer simulated cycles is kept (a note says so).
Expected<FromGirRun> lowerInsertAndJudge(const Graph& g, const FromGirOptions& opt, const Target& target,
                                         const OracleOptions& oracle);
// The same for several targets (one run each, in order), preparing, lowering and checking the graph once:
// the lowering does not depend on the flag count (the `target` line is set per target).
Expected<std::vector<FromGirRun>> lowerInsertAndJudge(const Graph& g, const FromGirOptions& opt,
                                                      const std::vector<Target>& targets, const OracleOptions& oracle);

}  // namespace gir::ascend
