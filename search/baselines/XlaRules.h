// Op properties and budgets of the xla-like planner (docs/baselines.md, "Op properties" and "Budget"),
// evaluated on the normalized problem. Each predicate is named after the XLA helper it mirrors.
#pragma once

#include <cstdint>
#include <set>

#include "search/baselines/PlanModel.h"

namespace gir::search {

struct XlaOptions {
  int maxOperandsAndOutputs = 96;        // MaxOperandsAndOutputsPerFusion
  int maxUnnestedReductions = 8;         // kMaxUnnestedReductionOutputsPerFusion
  int64_t smemPerBlock = 48 * 1024;      // CUDA's default static shared memory per block
  double mergerMaxByteRatio = 1.10;      // FusionMerger: allow <= 10% more bytes to save a launch
  bool multiOutput = true;               // GpuMultiOutputFusion (siblings, producer-consumer)
  bool gemmEpilogue = false;             // GemmRewriter: library calls take their epilogue (XlaGemmEpilogue.h)
};

// A Reduce the reduction emitter handles (row or column, "faster than elemental").
bool isUnnestedReduce(const PlanProblem& p, int n);
// Reduce input elements per output element (for IsExpensiveToRepeat, kMaxInputsPerOutput = 10).
int64_t reduceRatio(const PlanProblem& p, int n);
bool isLoopFusibleProducer(const PlanProblem& p, int n);
// Cheap in f32 on GPU: exp, div, sqrt, rsqrt (the GPU override); erf is cheap (absent from XLA's list).
bool isExpensive(const PlanProblem& p, int n);
// A Transpose whose permutation reorders two non-unit dims (it needs the tiled emitter).
bool isPhysicallyTransposing(const PlanProblem& p, int n);
bool isAlwaysDuplicable(const PlanProblem& p, int n);
// At most one operand of at least the output's rank, ignoring broadcast outputs.
bool isEffectivelyAtMostUnary(const PlanProblem& p, int n);
// Inside `group`, the output of `producer` (or something computed elementwise from it) reaches a
// broadcast that enlarges it: fusing would evaluate the producer several times per element.
bool reusesOutput(const PlanProblem& p, const std::set<int>& group, int producer);

struct FusionBudget {
  int operandsAndOutputs = 0;
  int unnestedReductions = 0;
  int64_t smemBytes = 0;
};
// Budget use of one prospective fusion: `nodes` with `roots` stored.
FusionBudget fusionBudget(const PlanProblem& p, const std::set<int>& nodes, const std::set<int>& roots);
bool withinBudget(const FusionBudget& b, const XlaOptions& o);

}  // namespace gir::search
