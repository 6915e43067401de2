// The plan explorer's numbers (design.md section 11): each baseline planner over every memory-bound
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
  double modelledUs = 0;  // DRAM bytes / DRAM bandwidth + kernels x launch cost
};

struct ModelPlans {
  std::string target;
  size_t subgraphs = 0;
  int64_t minimalBytes = 0;  // the lower bound summed over subgraphs
  std::vector<PlannerTotals> planners;  // eager, xla, tvm
};

// The modelled time of `kernels` kernels moving `dramBytes` on `hw` (the cost model of section 6
// restricted to what a baseline plan states).
double modelledPlanUs(int64_t kernels, int64_t dramBytes, const HardwareDesc& hw);

Expected<ModelPlans> planModel(const compute::Graph& g, const compute::PreprocessResult& pre, const HardwareDesc& hw);

// One line per difference between two runs of the same model on two hardware descriptions.
std::vector<std::string> whatIfDifferences(const compute::Graph& g, const compute::PreprocessResult& beforePre,
                                           const ModelPlans& before, const compute::PreprocessResult& afterPre,
                                           const ModelPlans& after);

}  // namespace gir::viz
