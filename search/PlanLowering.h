// A plan as a partition of a subgraph's ops into kernel groups, lowered to one GIR-Graph: each
// group is lowered with the templates the GIR search picks for it alone and optimized by the greedy
// optimizer alone (so fusion never crosses a group boundary), and the groups are joined in order
// with a device sync between the store of a tensor in one group and its loads in a later one.
// This is how the baselines reach GIR (baselines.md 5.0: "lower each kernel with the standard
// templates"), so a comparison measures fusion decisions, not weaker kernels.
#pragma once

#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/Preprocess.h"
#include "core/gir/Graph.h"
#include "core/hw/HardwareDesc.h"
#include "rewrite/Cost.h"
#include "search/GirSearch.h"
#include "search/baselines/PlanModel.h"

namespace gir::search {

struct LoweredPlan {
  LoweredSubgraph lowered;  // `gir` is the joined, per-group-optimized graph
  GraphCost cost;
  std::vector<std::vector<compute::OpId>> groups;
  SearchStats stats;        // summed over the groups' searches
};

// `groups` in an order where producers come first; every op of `sub` in at least one group (an
// op in several groups is recomputed in each).
Expected<LoweredPlan> lowerPartition(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                                     const std::vector<std::vector<compute::OpId>>& groups, const SearchOptions& options = {});

// The kernel groups of a baseline plan as op lists: plan nodes -> ops; reshapes (aliases in the
// baselines' model, ops here) join the group of their first consumer, or of their producer.
std::vector<std::vector<compute::OpId>> planGroups(const compute::Graph& g, const compute::Subgraph& sub, const PlanProblem& p,
                                                   const Plan& plan);

}  // namespace gir::search
