// Baseline (b), xla-like: GpuInstructionFusion (two sweeps), FusionMerger with the byte-ratio
// rule, GpuMultiOutputFusion, repeated to a fixpoint (baselines.md sections 1.1-1.5 and 5.2).
#pragma once

#include "search/baselines/PlanModel.h"
#include "search/baselines/XlaRules.h"

namespace gir::search {

Expected<Plan> planXla(const PlanProblem& p, const XlaOptions& options = {});

}  // namespace gir::search
