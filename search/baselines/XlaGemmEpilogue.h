// The xla-like planner's option gemm_epilogue (docs/baselines.md, "Library epilogue options": XLA's
// GemmRewriter folds a bias add and a simple activation into the cuBLASLt call): before any fusion, every
// library call of the problem takes the epilogue of the shared rule (core/compute/LibraryFusion.h) as one
// Library kernel, which later stages never fuse further. Off by default.
#pragma once

#include "search/baselines/XlaGroups.h"

namespace gir::search {

// Logs "xla.gemm_epilogue" per call that took ops; says whether any did.
bool foldGemmEpilogues(const PlanProblem& p, XlaGroups& gs, Plan& plan);

}  // namespace gir::search
