// Loop bands (docs/cpu.md, "Loop bands"): consecutive fused groups of a stage that run under shared
// outer loops, so one outer iteration (a row, say) passes through every group while its data is still
// in L1, and the memory streams of the passes overlap the arithmetic of the others. Softmax over
// 16-row units ran its max, exp-and-sum and divide passes over 8 KB each; as a band they run per row
// of 512 B. Target-neutral: it says which groups share which loops; a backend spells them.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/schedule/FusedLoops.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

// A band never leaves fewer iterations than this inside one shared iteration: below it the vector
// loops of the members are too short to pay for their remainders.
constexpr int64_t kBandMinInnerIterations = 64;

struct LoopBand {
  std::vector<size_t> groups;  // indices into the stage's groups, in their order
  size_t depth = 0;            // loops [0, depth) of every member are shared; 0: one group on its own
};

// The stage's groups (fuseStage's order) as bands. A fused group joins the open band when both run
// for the same units, share a prefix of equal, unreduced outer loops, and every buffer that two
// members touch, one of them writing it, is cut by those loops into the same disjoint cell per outer
// iteration in every access (same offset, same outer strides, inner span within the outer step).
std::vector<LoopBand> bandGroups(const Graph& g, const std::vector<LoopGroup>& groups,
                                 int64_t minInnerIterations = kBandMinInnerIterations);

// True when every access of `b` by the members is cut by loops [0, depth) into the same disjoint cell per
// outer iteration (the test above, for one buffer): outer iteration i touches no cell of another.
bool bandPartitions(const Graph& g, const std::vector<const LoopGroup*>& members, BufferId b, size_t depth);

}  // namespace gir::codegen
