// Every planner on every memory-bound subgraph of a model, lowered to GIR and checked: the baselines
// (eager, xla-like, tvm-like: their analytic plan, then their kernel groups lowered with the same
// templates) and the GIR planner (the template search on the whole subgraph, and on the baselines'
// groups as starting partitions; the best valid one by modelled time). What `gir plan`, the app,
// the code generators and the benchmarks consume. The planners of one subgraph run side by side
// (docs/scale.md, "Plan time"); the result does not depend on how many threads there are.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "search/PlanLowering.h"
#include "search/baselines/PlanModel.h"

namespace gir::search {

struct PlannerResult {
  std::string planner;          // "gir", "eager", "xla", "tvm"
  std::optional<Plan> analytic; // baselines: the plan and its accounting (docs/baselines.md, "The common model")
  LoweredPlan lowered;          // the plan as one GIR-Graph
  std::string origin;           // gir: "whole subgraph" or "groups of <planner>"
  bool checked = false;         // validated (valid, maxRelativeError, problem and checkMethod hold its verdict)
  bool valid = false;           // verifier + memory-model checker + reference evaluator
  double maxRelativeError = 0;
  std::string problem;          // why not valid
  std::string checkMethod;      // empty: element by element at full size; else how (docs/scale.md)
  std::string wholeSubgraphError;  // gir: why the whole-subgraph search gave no plan (a partition won)
};

struct SubgraphPlans {
  size_t index = 0;
  const compute::Subgraph* subgraph = nullptr;
  int64_t minimalBytes = 0;
  std::vector<PlannerResult> planners;  // in the order asked (see notCovered)
  // planModel, partial coverage (docs/plans.md, "Partial coverage"): why this subgraph is left out of
  // the comparison, which names the planner that has no plan for it. failedPlanner "gir" (or empty):
  // the subgraph is not GIR and `planners` is empty; a baseline's name: it is GIR (`planners` holds
  // the GIR plan alone) but the planners cannot be compared on it. The model's other subgraphs are
  // still planned.
  std::string notCovered;
  std::string failedPlanner;
  // Planned, or left out with the GIR planner's plan in hand (not when the GIR planner was not asked).
  bool isGir() const { return notCovered.empty() || find("gir") != nullptr; }
  SearchStats search;                   // the GIR planner's search (all its searches summed)
  // Set when the request moved library boundaries: the adjusted preprocessing that owns *subgraph.
  std::shared_ptr<const compute::PreprocessResult> adjusted;
  const PlannerResult* find(const std::string& name) const;
};

// One memo per planner: a planner's searches never answer from another's verdicts (the baselines
// search with oneKernel, the GIR planner without), and planners that run side by side share none.
struct PlannerMemos {
  SearchMemo gir, eager, xla, tvm;
  SearchMemo* of(const std::string& planner);  // null for an unknown name
};

struct PlanRequest {
  std::vector<std::string> planners{"gir", "eager", "xla", "tvm"};
  bool validate = true;
  SearchOptions search;
  // Library-op epilogues (compute/LibraryFusion.h): planModel folds each compute-bound call's
  // epilogue into the call before any planner runs, so every planner plans the same subgraphs.
  // Off by default (docs/baselines.md, "Library epilogue options"). planSubgraph plans the
  // subgraph it is given and ignores this.
  bool libraryEpilogue = false;
  // Verdicts of earlier searches, per planner (planModel sets one for the whole model; not owned).
  PlannerMemos* memos = nullptr;
};

// How many subgraphs every planner planned, and the first reason one is not covered ("subgraph N: ...").
size_t coveredSubgraphs(const std::vector<SubgraphPlans>& plans);
std::string firstNotCovered(const std::vector<SubgraphPlans>& plans);

const std::vector<std::string>& plannerNames();  // gir, eager, xla, tvm: every planner, in report order
bool isPlannerName(const std::string& name);

Expected<SubgraphPlans> planSubgraph(const compute::Graph& g, const compute::Subgraph& sub, size_t index, const HardwareDesc& hw,
                                     const PlanRequest& request);
// Every subgraph of the model, in order: planned, or with notCovered set when some planner failed on it
// (an error only for what concerns the whole model: an unknown planner, the epilogue fold).
Expected<std::vector<SubgraphPlans>> planModel(const compute::Graph& g, const compute::PreprocessResult& pre, const HardwareDesc& hw,
                                               const PlanRequest& request);

}  // namespace gir::search
