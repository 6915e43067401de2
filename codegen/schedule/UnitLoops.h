// Units as loop nests, for a target that runs a phase's units one after another in a loop language without
// division (Ascend's .asck, docs/ascend.md, "From GIR"): a phase's unit range is cut where a node's domain
// starts or ends, so that every segment has one set of nodes, and each segment becomes mixed-radix loop
// nests in which every u/k and u%k of the phase's offsets is an affine function of the loop variables.
// The divisors k of one phase must form a chain k1 | k2 | ... for that to exist.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

// One loop of a nest: `trip` iterations, the unit index grows by `stride` per iteration.
struct UnitLoop {
  std::string var;
  int64_t trip = 1;
  int64_t stride = 1;
};

// Units [begin, end) of one phase, run as nested loops: u = base + sum(stride * var). Every unit of the range
// appears exactly once. `nodes` are the phase's nodes whose domain covers these units, in program order.
struct UnitNest {
  int phase = 0;
  int64_t begin = 0, end = 0, base = 0;
  std::vector<UnitLoop> loops;  // outermost first; empty: one unit
  std::vector<NodeId> nodes;
  int64_t iterations() const { return end - begin; }
  // The unit of an iteration, given the loop variables' values (outermost first).
  int64_t unitAt(const std::vector<int64_t>& vars) const;
  // The iteration number 0..iterations()-1 of those values (row-major over the loops).
  int64_t linearAt(const std::vector<int64_t>& vars) const;
};

// The chain k1 | k2 | ... of the divisors of the u/k and u%k terms of `nodes` (one phase's), with the
// optional `extra` divisors joined where they keep the chain. Fails, naming a node, when two divisors do
// not nest (neither divides the other): no loop nest makes both affine.
Expected<std::vector<int64_t>> divisorChain(const Graph& g, const std::vector<NodeId>& nodes, int phase, const std::vector<int64_t>& extra);

// The nests of one phase: `nodes` (in program order) over units [0, g.units), cut at their domains,
// each segment decomposed along `chain`.
std::vector<UnitNest> nestPhase(const Graph& g, int phase, const std::vector<NodeId>& nodes, const std::vector<int64_t>& chain);

}  // namespace gir::codegen
