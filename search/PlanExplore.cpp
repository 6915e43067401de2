// Through search/: templateOptions, lowerAndOptimize, lowerPartition, planSubgraph, checkAgainstReference.
#include "search/PlanExplore.h"

#include "core/gir/Validity.h"
#include "rewrite/Cost.h"
#include "search/GirSearch.h"
#include "search/ModelPlanner.h"
#include "search/PlanLowering.h"
#include "search/templates/SubgraphCheck.h"

namespace gir::search {

namespace {

// A partition of the subgraph's ops into runs in graph order, or nullopt when the plan's kernels
// are not such runs (an op recomputed in two kernels, or out of order).
std::optional<std::vector<bool>> boundariesOf(const compute::Subgraph& sub, const std::vector<std::vector<compute::OpId>>& groups) {
  std::vector<bool> out;
  std::vector<compute::OpId> flat;
  for (const auto& grp : groups)
    for (size_t i = 0; i < grp.size(); ++i) {
      out.push_back(i == 0);
      flat.push_back(grp[i]);
    }
  if (flat != sub.ops) return std::nullopt;
  return out;
}

// Verifier + memory-model checker, then the reference evaluator, as planSubgraph validates.
void validate(const compute::Graph& g, const compute::Subgraph& sub, const LoweredSubgraph& lowered, PlanRow& row) {
  ValidityReport v = checkValidity(lowered.gir, randomInputs(lowered.gir, 7));
  if (!v.valid()) {
    row.problem = v.str();
    return;
  }
  auto check = checkAgainstReference(g, sub, lowered, lowered.gir, kPlanCheckSeed);
  if (!check) {
    row.problem = check.error().str();
    return;
  }
  row.valid = check->maxRelativeError <= kPlanTolerance;
  if (!row.valid) row.problem = "outputs differ from the reference evaluator (max relative error " + std::to_string(check->maxRelativeError) + ")";
}

void costRow(const Graph& gir, const HardwareDesc& hw, PlanRow& row) {
  GraphCost c = computeCost(gir, &hw);
  row.kernels = c.kernels;
  row.dramBytes = c.dramBytes;
  row.modelledUs = c.modelledUs;
}

}  // namespace

Expected<SubgraphExplore> exploreSubgraph(const compute::Graph& g, const compute::PreprocessResult& pre, size_t index, const HardwareDesc& hw) {
  if (index >= pre.subgraphs.size()) return makeError("there is no memory-bound subgraph " + std::to_string(index));
  const compute::Subgraph& sub = pre.subgraphs[index];
  SubgraphExplore out;
  out.index = index;
  int64_t budget = boxElementBudget(hw);
  for (size_t i = 0; i < sub.ops.size(); ++i) {
    const compute::Op& op = g.op(sub.ops[i]);
    out.ops.push_back({sub.ops[i], op.name, std::string(compute::opKindName(op.kind())), templateOptions(g, sub, i, budget)});
  }
  auto plans = planSubgraph(g, sub, index, hw, PlanRequest{});
  if (!plans) return plans.takeError();
  out.minimalBytes = plans->minimalBytes;
  for (const PlannerResult& r : plans->planners) {
    const GraphCost& c = r.lowered.cost;
    out.planners.push_back({r.planner, c.kernels, c.dramBytes, c.modelledUs, r.valid, true, r.problem});
  }
  // Defaults: the GIR planner's kernels when they are runs of ops, and the search's templates on
  // the whole subgraph (the planner's own when its plan is that one kernel).
  out.searchedBoundary.assign(sub.ops.size(), false);
  if (!out.searchedBoundary.empty()) out.searchedBoundary[0] = true;
  const PlannerResult* gir = plans->find("gir");
  if (gir)
    if (auto b = boundariesOf(sub, gir->lowered.groups)) out.searchedBoundary = *b;
  if (gir && gir->lowered.groups.size() == 1 && gir->lowered.templates.size() == 1 && gir->lowered.templates[0].size() == sub.ops.size()) {
    out.searched = gir->lowered.templates[0];
  } else {
    auto found = searchTemplates(g, sub, hw);
    if (!found) return found.takeError();
    out.searched = found->choice;
  }
  return out;
}

UserPlan lowerUserPlan(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                       const std::vector<OpTemplate>& choice, const std::vector<bool>& boundary) {
  UserPlan out;
  out.row.planner = "yours";
  out.row.lowered = false;
  KernelGroups groups;
  for (size_t i = 0; i < sub.ops.size(); ++i) {
    if (groups.ops.empty() || (i < boundary.size() && boundary[i])) {
      groups.ops.emplace_back();
      groups.templates.emplace_back();
    }
    groups.ops.back().push_back(sub.ops[i]);
    if (i < choice.size()) groups.templates.back().push_back(choice[i]);
  }
  if (groups.ops.size() <= 1) {
    auto lowered = lowerAndOptimize(g, sub, hw, choice, LoweringOptions{});
    if (!lowered) {
      out.row.problem = "the templates do not lower: " + lowered.error().str();
      return out;
    }
    out.lowered = std::move(lowered->first);
    out.lowered->gir = std::move(lowered->second);
    out.usedTemplates = {choice};
  } else {
    auto plan = lowerPartition(g, sub, hw, groups);
    if (!plan) {
      out.row.problem = "the kernels do not lower: " + plan.error().str();
      return out;
    }
    out.usedTemplates = plan->templates;
    out.lowered = std::move(plan->lowered);
  }
  out.row.lowered = true;
  costRow(out.lowered->gir, hw, out.row);
  validate(g, sub, *out.lowered, out.row);
  return out;
}

}  // namespace gir::search
