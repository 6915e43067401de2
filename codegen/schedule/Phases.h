// Levels of a GIR-Graph's nodes: the one longest-path numbering behind the schedule's stages (a
// kernel split at block syncs, Schedule.h) and Ascend's phases (the unit loop split where units
// must wait for one another, docs/ascend.md, "From GIR").
//
// An edge from a to b with weight w asks level(b) >= level(a) + w: weight 1 where crossing the edge
// must wait for every unit (a block sync, a device sync, an element passing between units), 0 where
// a unit's own program order already holds it. Levels are the earliest that satisfy every edge;
// with LevelSink::ToConsumers, every node with successors then moves to the latest level they allow,
// so a load or a unit-local chain sits next to its consumers and what it writes lives in one level.
#pragma once

#include <vector>

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

struct LevelEdge {
  NodeId to;
  int weight = 0;
};
using LevelEdges = std::vector<std::vector<LevelEdge>>;  // per node id, its out-edges

enum class LevelSink { Earliest, ToConsumers };

// Per node id: its level, -1 for nodes not in `order` (which must be topological for `edges`).
std::vector<int> levelNodes(size_t nodeCount, const std::vector<NodeId>& order, const LevelEdges& edges, LevelSink sink);

// What splits the units' run into phases (one level after the other).
enum class PhaseSplit {
  Data,  // only where an element passes between different units: a read, or an overwrite, of another unit's element
  Sync,  // every block (of 2+ units) and device sync, as the GIR kernels are written
};

// Phases of a whole graph run unit by unit (Ascend's one core): edges of the dependency graph weigh 1
// after a block (2+ units per block) or device sync under PhaseSplit::Sync, and edges along which the
// interpreter sees an element pass between units weigh 1 under PhaseSplit::Data (GIR addresses are affine
// in the unit, so one run sees every access). Levels sink to their consumers. `order` is the topological
// order the caller runs nodes in.
Expected<std::vector<int>> phasesOf(const Graph& g, const std::vector<NodeId>& order, PhaseSplit split);

}  // namespace gir::codegen
