// Baseline (b), xla-like: GpuInstructionFusion (two sweeps), FusionMerger with the byte-ratio
// rule, GpuMultiOutputFusion, repeated to a fixpoint (docs/baselines.md, "xla-like").
#pragma once

#include "search/baselines/PlanModel.h"
#include "search/baselines/XlaRules.h"

namespace gir::search {

Expected<Plan> planXla(const PlanProblem& p, const XlaOptions& options = {});

}  // namespace gir::search
