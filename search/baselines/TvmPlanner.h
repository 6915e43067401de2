// Baseline (c), tvm-like: op pattern kinds, the post-dominator tree and relay's GraphPartitioner
// (docs/baselines.md, "tvm-like"). No node is ever duplicated.
#pragma once

#include "search/baselines/PlanModel.h"

namespace gir::search {

// relay's TOpPattern values; the order matters (patterns combine by max).
enum class OpPattern { ElemWise = 0, Broadcast = 1, Injective = 2, CommReduce = 3, OutEWiseFusable = 4, Opaque = 8 };
std::string_view opPatternName(OpPattern k);

struct TvmOptions {
  int maxDepth = 256;            // relay.FuseOps.max_depth (kMaxFusedOps)
  bool libraryEpilogue = false;  // library ops as kOutEWiseFusable; off: the workbench calls a BLAS
};

OpPattern nodePattern(const PlanProblem& p, int node, const TvmOptions& options);

Expected<Plan> planTvm(const PlanProblem& p, const TvmOptions& options = {});

}  // namespace gir::search
