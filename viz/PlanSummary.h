// The plan explorer's numbers (docs/app.md, "Tabs", Plans): each baseline planner over every memory-bound
// subgraph of a model, summed (kernels, DRAM bytes, modelled time), and what a hardware what-if edit
// changed (intensity decisions, subgraphs, planner totals).
#pragma once

#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"

namespace gir::viz {

struct PlannerTotals {
  std::string planner;
  int64_t kernels = 0;
  int64_t dramBytes = 0;
  double modelledUs = 0;  // analytic: DRAM bytes / DRAM bandwidth + kernels x launch cost; lowered: the GIR cost model
  bool valid = true;      // lowered: every subgraph's GIR passed verifier, memory checker and reference evaluator
  std::string problem;    // lowered: the first subgraph's reason when not valid
};

struct ModelPlans {
  bool lowered = false;  // false: the baselines' analytic plans; true: every planner lowered to GIR, "gir" first
  std::string target;
  size_t subgraphs = 0;
  // Lowered: the subgraphs every planner lowered, which the totals sum, and why each other one is
  // left out (partial coverage, docs/plans.md): not GIR, or GIR but a baseline has no plan for it.
  size_t covered = 0;
  struct Uncovered {
    size_t subgraph = 0;
    bool gir = false;  // the GIR planner lowered it (a baseline did not)
    std::string reason;
  };
  std::vector<Uncovered> uncovered;
  int64_t minimalBytes = 0;  // the lower bound summed over the subgraphs in the totals
  std::vector<PlannerTotals> planners;  // eager, xla, tvm
};

// The modelled time of `kernels` kernels moving `dramBytes` on `hw` (docs/plans.md, "The cost model",
// restricted to what a baseline plan states).
double modelledPlanUs(int64_t kernels, int64_t dramBytes, const HardwareDesc& hw);

// The baselines' analytic plans (fast: no lowering).
Expected<ModelPlans> planModel(const compute::Graph& g, const compute::PreprocessResult& pre, const HardwareDesc& hw);
// Every planner, the GIR planner first, lowered to GIR and validated (search/ModelPlanner.h; seconds).
Expected<ModelPlans> planModelLowered(const compute::Graph& g, const compute::PreprocessResult& pre, const HardwareDesc& hw);

// One line per planner figure (kernels, DRAM bytes, modelled time) that differs between two runs, planners
// matched by name; lines of two lowered runs say "(lowered)".
std::vector<std::string> plannerDifferences(const ModelPlans& before, const ModelPlans& after);
// One line per difference between two runs of the same model on two hardware descriptions.
std::vector<std::string> whatIfDifferences(const compute::Graph& g, const compute::PreprocessResult& beforePre,
                                           const ModelPlans& before, const compute::PreprocessResult& afterPre,
                                           const ModelPlans& after);

}  // namespace gir::viz
