// The plan explorer's model (docs/app.md, "Tabs", Plans; issue #9): for one memory-bound subgraph, the
// templates each op offers, the GIR planner's choice (templates and kernel boundaries), every
// planner's lowered plan, and the user's own plan — per-op templates and kernel boundaries —
// lowered, optimized, validated and costed like the planners' plans. No Qt: the app's PlanExplorer
// runs these on a worker thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "search/lowering/TemplateState.h"
#include "search/templates/LoweredSubgraph.h"

namespace gir::search {

struct PlanRow {
  std::string planner;  // "gir", "eager", "xla", "tvm", "yours"
  int64_t kernels = 0;
  int64_t dramBytes = 0;
  double modelledUs = 0;
  bool valid = false;
  bool lowered = true;  // false: the plan did not lower (no numbers)
  std::string problem;  // why not valid (or why it could not be lowered)
};

struct ExploreOp {
  compute::OpId op;
  std::string name, kind;                    // "Softmax/exp", "exp"
  std::vector<OpTemplate> templates;  // what the op offers, most promising first
};

struct SubgraphExplore {
  size_t index = 0;
  std::vector<ExploreOp> ops;                    // in the subgraph's (graph) order
  std::vector<OpTemplate> searched;      // the GIR search's template per op (whole subgraph)
  std::vector<bool> searchedBoundary;            // the GIR planner's plan: a kernel starts at op i
  std::vector<PlanRow> planners;                 // gir, eager, xla, tvm lowered to GIR and validated
  int64_t minimalBytes = 0;
};

// The templates, the GIR search's choice and every planner's plan for subgraph `index` (seconds).
Expected<SubgraphExplore> exploreSubgraph(const compute::Graph& g, const compute::PreprocessResult& pre, size_t index, const HardwareDesc& hw);

struct UserPlan {
  PlanRow row;                                   // planner "yours"
  std::optional<LoweredSubgraph> lowered;  // the optimized GIR-Graph and its buffer map, when lowered
  std::vector<std::vector<OpTemplate>> usedTemplates;  // per kernel, per op
};

// The user's plan: `boundary[i]` starts a new kernel at op i (boundary[0] is ignored). Unsplit, the
// op templates `choice` are lowered and the greedy optimizer fuses what they allow; split, the
// kernels are lowered by lowerPartition with the same per-op templates (a follow of a
// producer in another kernel does not apply there: the plan is invalid, with the reason). The
// result is validated (verifier, memory-model checker, reference evaluator); a template that does
// not apply gives an invalid row with the lowering's message, not an error.
UserPlan lowerUserPlan(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                       const std::vector<OpTemplate>& choice, const std::vector<bool>& boundary);

}  // namespace gir::search
