// Loop fusion inside a stage (docs/cpu.md, "One loop nest per fused group"): a unit's consecutive
// gOperators that walk the same iteration space become one loop nest, and a unit-scope buffer that
// only lives inside that nest becomes a value, not an array. Target-neutral: it says which nodes
// share a nest and which buffers need no storage; a backend spells the loops.
#pragma once

#include <vector>

#include "codegen/schedule/LoopNest.h"
#include "codegen/schedule/Schedule.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

// One loop nest of a stage: one or more nodes whose nests are all re-expressed over `extents`
// (fused), or a node the group form cannot hold (a staged operand, a reduction over outer loops),
// emitted on its own (fused = false, its own nest). In a fused
// group the reduced loops, if any, are the innermost ones and every reduce of the group reduces
// exactly them; a reduce's result is complete only after the group, so no member reads it.
struct LoopGroup {
  bool fused = false;
  std::vector<NodeId> nodes;    // in the order their statements run inside one iteration
  std::vector<LoopNest> nests;  // per node
  std::vector<int64_t> extents;
  std::vector<bool> reduced;    // per loop of `extents`
  // Not fused, two nodes: a lone move and, right after it on the same domain and space, the reduce
  // that reads what it wrote element for element. Where the move's buffer needs no storage
  // (valueBuffers), the reduce reads the move's source and the move is not emitted: a move into
  // registers is a load (docs/cpu.md, "Reductions").
  bool readsThroughMove = false;
};

// The stage's nodes as loop groups, in an order that respects every dependence. A node joins the
// open group when its nest refines to the group's space and each buffer it shares with the group is
// read-only in the group or walked element for element as its one writer in the group writes it. A
// node that cannot join but touches nothing the group writes, and writes nothing the group touches,
// runs before the group (it is independent of it); any other node closes the group. When a node closes
// it, the last node run first runs after the group instead if it commutes with every member, and opens
// the next group for the closing node to join (docs/cpu.md, "Run after").
std::vector<LoopGroup> fuseStage(const Graph& g, const Stage& stage);

// Buffers that need no storage: per-unit (one stage) buffers, not device level, written by one node
// of a fused group and read only inside that group at the elements it writes. Per buffer id.
std::vector<bool> valueBuffers(const Graph& g, const Schedule& s, const std::vector<LoopGroup>& groups);

// True when an input operand of `group.nodes[k]` reads, element for element, what an earlier member
// of the group wrote: its writer's position in the group, or -1.
int forwardedFrom(const Graph& g, const LoopGroup& group, size_t k, size_t input);

}  // namespace gir::codegen
