// Runs the baseline planners per subgraph through search/baselines/Planners.h and sums them.
#include "viz/PlanSummary.h"

#include <cstdio>

#include "search/ModelPlanner.h"
#include "search/baselines/PlanModel.h"
#include "search/baselines/Planners.h"

namespace gir::viz {

double modelledPlanUs(int64_t kernels, int64_t dramBytes, const HardwareDesc& hw) {
  double bw = hw.dramBandwidthGBs();
  double us = bw > 0 ? static_cast<double>(dramBytes) / (bw * 1e3) : 0;
  return us + static_cast<double>(kernels) * hw.launchCostUs;
}

Expected<ModelPlans> planModel(const compute::Graph& g, const compute::PreprocessResult& pre, const HardwareDesc& hw) {
  ModelPlans out;
  out.target = hw.name;
  out.subgraphs = pre.subgraphs.size();
  out.covered = out.subgraphs;
  for (const std::string& name : search::baselinePlannerNames()) out.planners.push_back({name, 0, 0, 0, true, ""});
  for (size_t s = 0; s < pre.subgraphs.size(); ++s) {
    auto problem = search::makeProblem(g, pre.subgraphs[s], "subgraph " + std::to_string(s));
    if (!problem) return problem.takeError();
    out.minimalBytes += search::lowerBoundBytes(*problem);
    for (PlannerTotals& t : out.planners) {
      auto plan = search::runBaselinePlanner(t.planner, *problem);
      if (!plan) return plan.takeError();
      t.kernels += plan->totals.kernels;
      t.dramBytes += plan->totals.dramBytes();
    }
  }
  for (PlannerTotals& t : out.planners) t.modelledUs = modelledPlanUs(t.kernels, t.dramBytes, hw);
  return out;
}

Expected<ModelPlans> planModelLowered(const compute::Graph& g, const compute::PreprocessResult& pre, const HardwareDesc& hw) {
  auto plans = search::planModel(g, pre, hw, search::PlanRequest{});
  if (!plans) return plans.takeError();
  ModelPlans out;
  out.lowered = true;
  out.target = hw.name;
  out.subgraphs = pre.subgraphs.size();
  for (const std::string& name : search::plannerNames()) out.planners.push_back({name, 0, 0, 0, true, ""});
  for (const search::SubgraphPlans& sp : *plans) {
    if (!sp.notCovered.empty()) {
      out.uncovered.push_back({sp.index, sp.isGir(), sp.notCovered});
      continue;
    }
    ++out.covered;
    out.minimalBytes += sp.minimalBytes;
    for (PlannerTotals& t : out.planners) {
      const search::PlannerResult* r = sp.find(t.planner);
      if (!r) continue;
      t.kernels += r->lowered.cost.kernels;
      t.dramBytes += r->lowered.cost.dramBytes;
      t.modelledUs += r->lowered.cost.modelledUs;
      if (!r->valid && t.valid) t.problem = "subgraph " + std::to_string(sp.index) + ": " + r->problem;
      t.valid = t.valid && r->valid;
    }
  }
  return out;
}

static std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

std::vector<std::string> plannerDifferences(const ModelPlans& before, const ModelPlans& after) {
  std::vector<std::string> out;
  std::string how = before.lowered && after.lowered ? " (lowered)" : "";
  for (const PlannerTotals& a : before.planners)
    for (const PlannerTotals& b : after.planners) {
      if (a.planner != b.planner) continue;
      std::string who = a.planner + how;
      if (a.kernels != b.kernels) out.push_back(who + ": kernels " + std::to_string(a.kernels) + " -> " + std::to_string(b.kernels));
      if (a.dramBytes != b.dramBytes) out.push_back(who + ": DRAM bytes " + std::to_string(a.dramBytes) + " -> " + std::to_string(b.dramBytes));
      if (a.modelledUs != b.modelledUs) out.push_back(who + ": modelled " + fmt(a.modelledUs) + " us -> " + fmt(b.modelledUs) + " us");
    }
  return out;
}

std::vector<std::string> whatIfDifferences(const compute::Graph& g, const compute::PreprocessResult& beforePre,
                                           const ModelPlans& before, const compute::PreprocessResult& afterPre,
                                           const ModelPlans& after) {
  std::vector<std::string> out;
  if (beforePre.ridgeFlopsPerByte != afterPre.ridgeFlopsPerByte)
    out.push_back("ridge point " + fmt(beforePre.ridgeFlopsPerByte) + " -> " + fmt(afterPre.ridgeFlopsPerByte) + " FLOP/byte");
  for (size_t i = 0; i < beforePre.library.size() && i < afterPre.library.size(); ++i) {
    const auto& a = beforePre.library[i];
    const auto& b = afterPre.library[i];
    if (a.verdict() == b.verdict()) continue;
    out.push_back("'" + g.op(a.op).name + "' (intensity " + fmt(a.intensity) + ") is now " +
                  b.verdict());
  }
  if (before.subgraphs != after.subgraphs)
    out.push_back("memory-bound subgraphs " + std::to_string(before.subgraphs) + " -> " + std::to_string(after.subgraphs));
  for (std::string& line : plannerDifferences(before, after)) out.push_back(std::move(line));
  if (out.empty()) out.push_back("no difference: the same decisions, plans and modelled times");
  return out;
}

}  // namespace gir::viz
