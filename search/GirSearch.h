// The GIR planner's search (GIR paper section 6; docs/plans.md, "The search"): choose one template per op,
// lower the subgraph (per-op kernels joined by device syncs), run the greedy optimizer, and cost
// the result with the model. Exhaustive branch and bound while the number of template
// combinations is small, beam search above that; deterministic (options and ties in a fixed order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "rewrite/Cost.h"
#include "core/compute/ReducedInstance.h"
#include "search/SearchMemo.h"
#include "search/lowering/SubgraphLowering.h"

namespace gir::search {

struct SearchOptions {
  size_t exhaustiveLimit = 256;  // template combinations searched exhaustively
  size_t beamWidth = 8;
  size_t maxEvaluations = 64;    // complete candidates costed before the exhaustive search stops
  // Stop once this many candidates in a row, costed after the best so far, do not improve on it
  // (0: never). Measured without it, an improvement came at most 9 candidates after the one before
  // on cpu-host and 12 on nvidia-a100 (docs/plans.md, "The search").
  size_t patience = 16;
  bool stopAtDramFloor = true;   // stop at a plan with one launch, minimal DRAM bytes, no syncs
  bool validate = true;          // check the chosen plan (else the best candidate is taken unchecked)
  // A baseline's fusion group is one kernel by definition: candidates that stay one GIR kernel
  // win over faster ones that split it (a split reduction or a staged transpose across blocks).
  bool oneKernel = false;
  int64_t unitsPerBlock = 4;
  LoweringOptions lowering;     // names of buffers (baseline fragments)
  SearchMemo* memo = nullptr;   // verdicts shared by the searches of one model (optional, not owned)
  // The reduced instance of the subgraph that the searched one is a part of (a kernel group): its
  // search runs on the same part of that instance, so every group of a plan and the plan's check
  // see one reduced instance (docs/scale.md). Not owned; null: reduce the searched subgraph itself.
  const compute::ReducedInstance* reducedParent = nullptr;
  bool widestBoxes = false;  // natural splits take the widest box that fits (templateOptions)
  std::vector<std::vector<int64_t>> fullSizeFactors;  // TemplateState::setFullSizeFactors, per op
  // Work side by side (candidates of a search, planners of a subgraph): 0 = one thread per core,
  // 1 = one at a time. The plans do not depend on it (docs/scale.md, "Plan time").
  unsigned threads = 0;
};

struct SearchStats {
  int64_t explored = 0;    // complete candidates lowered, optimized and costed
  double pruned = 0;       // candidates never costed: cut by the bound, infeasible prefixes, beam drops
                           // (a double: a subgraph of 76 ops has ~10^18 combinations, a model sums many)
  int64_t infeasible = 0;  // complete candidates whose templates did not apply
  double seconds = 0;          // choosing the templates (lowering, greedy, costing the candidates)
  double validateSeconds = 0;  // checking the chosen plan (memory model + reference evaluator)
  int64_t memoHits = 0;        // searches answered by the memo (a repeated subgraph)
  bool beam = false;
  std::string reducedInstance;  // searched on this reduced instance (docs/scale.md); empty: at full size
};

// A count that may be astronomically large, for text: digits up to 10^15, then "2.31e+18".
std::string formatCount(double n);

struct Candidate {
  std::vector<OpTemplate> choice;
  GraphCost cost;
  int64_t costedAt = 0;  // how many candidates (feasible or not) the search had costed before this one
};

struct SearchResult {
  std::vector<OpTemplate> choice;
  LoweredSubgraph lowered;   // the per-op lowering of the choice
  Graph optimized;           // after the greedy optimizer
  GraphCost cost;            // of `optimized`
  SearchStats stats;
  std::vector<Candidate> candidates;  // every costed candidate, best first (measured-vs-modelled uses them)
};

// Subgraphs whose tensors hold more elements than this are searched and checked element by element
// on a reduced instance, and checked symbolically at full size (docs/scale.md).
constexpr int64_t kOracleElements = int64_t{1} << 20;
bool checkedAtScale(const compute::Graph& g, const compute::Subgraph& sub);

// Modelled time no plan can beat: one launch and the minimal bytes at full DRAM efficiency.
double modelledLowerBound(const compute::Subgraph& sub, const HardwareDesc& hw);

// Lower a choice and run the greedy optimizer on it (unchecked: the rewrites are correct by
// construction and the planner validates the plan it keeps).
Expected<std::pair<LoweredSubgraph, Graph>> lowerAndOptimize(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                                                             const std::vector<OpTemplate>& choice, const LoweringOptions& options);
Expected<std::pair<LoweredSubgraph, Graph>> lowerAndOptimize(const TemplateState& state, const HardwareDesc& hw, const LoweringOptions& options);

Expected<SearchResult> searchTemplates(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                                       const SearchOptions& options = {});

}  // namespace gir::search
