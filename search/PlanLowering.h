// A plan as a partition of a subgraph's ops into kernel groups, lowered to one GIR-Graph: each
// group is lowered with the templates the GIR search picks for it alone and optimized by the greedy
// optimizer alone (so fusion never crosses a group boundary), and the groups are joined in order
// with a device sync between the store of a tensor in one group and its loads in a later one.
// This is how the baselines reach GIR (docs/baselines.md, "Lowering a plan to GIR"), so a comparison
// measures fusion decisions, not weaker kernels.
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
  std::vector<std::vector<compute::TensorId>> exports;  // as given to lowerPartition (may be empty)
  std::vector<std::vector<OpTemplate>> templates;  // per group, per op of the group in graph order
  SearchStats stats;        // summed over the groups' searches
};

// Kernel groups: ops per group, producers' groups first; every op of `sub` in at least one group
// (an op in several groups is recomputed in each). `exports[k]`, when given, are the tensors group
// k stores (a tensor produced by several groups is stored by the one exporting it); otherwise a
// group stores what the model or a group not producing it needs.
// `templates[k]`, when given and not empty, fixes group k's template per op (in graph order) instead
// of searching them: the plan explorer's per-op choice. A follow of a producer in another group does
// not apply (the group reads that tensor from DRAM) and fails with the lowering's reason.
struct KernelGroups {
  std::vector<std::vector<compute::OpId>> ops;
  std::vector<std::vector<compute::TensorId>> exports;
  std::vector<std::vector<OpTemplate>> templates;
  bool operator==(const KernelGroups&) const = default;
};

Expected<LoweredPlan> lowerPartition(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                                     const KernelGroups& groups, const SearchOptions& options = {});

// The kernel groups of a baseline plan: plan nodes -> ops, kernel outputs -> exports; reshapes and
// views (aliases in the baselines' model, ops here) join the group of their first consumer, or of
// their producer.
KernelGroups planGroups(const compute::Graph& g, const compute::Subgraph& sub, const PlanProblem& p, const Plan& plan);

}  // namespace gir::search
