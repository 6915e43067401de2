// The check of a plan whose subgraph is too large for the element-level oracle (docs/scale.md):
// the full-size GIR-Graph is verified and memory-checked symbolically, and the same partition with
// the same templates, lowered on the subgraph's reduced instance, is checked element by element
// (interpreter, memory-model checker, reference evaluator).
#pragma once

#include "search/PlanLowering.h"
#include "search/templates/SubgraphCheck.h"

namespace gir::search {

Expected<PlanCheck> checkPlanAtScale(const compute::Graph& g, const compute::Subgraph& sub, const LoweredPlan& plan, const HardwareDesc& hw,
                                     const SearchOptions& options, uint64_t seed);

}  // namespace gir::search
