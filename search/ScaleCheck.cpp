// Symbolic at full size, element by element on the reduced instance: both must pass.
#include "search/ScaleCheck.h"

#include "core/compute/ReducedInstance.h"
#include "search/lowering/TemplateState.h"

namespace gir::search {

namespace {

// The plan's partition and templates, carried over to the reduced instance (op i <-> op i).
KernelGroups reducedGroups(const compute::Subgraph& sub, const LoweredPlan& plan, const compute::ReducedInstance& r) {
  KernelGroups kg;
  auto opOf = [&](compute::OpId id) {
    for (size_t i = 0; i < sub.ops.size(); ++i)
      if (sub.ops[i] == id) return r.sub.ops[i];
    return id;
  };
  for (const auto& group : plan.groups) {
    kg.ops.emplace_back();
    for (compute::OpId id : group) kg.ops.back().push_back(opOf(id));
  }
  for (const auto& exports : plan.exports) {
    kg.exports.emplace_back();
    for (compute::TensorId t : exports) kg.exports.back().push_back(r.tensorOf.at(compute::index(t)));
  }
  kg.templates = plan.templates;
  return kg;
}

}  // namespace

Expected<PlanCheck> checkPlanAtScale(const compute::Graph& g, const compute::Subgraph& sub, const LoweredPlan& plan, const HardwareDesc& hw,
                                     const SearchOptions& options, uint64_t seed) {
  PlanCheck out;
  std::string inconclusive;
  out.problem = symbolicProblem(plan.lowered.gir, inconclusive);
  if (!out.problem.empty()) return out;
  std::string symbolic = inconclusive.empty() ? "symbolic at full size" : "verified at full size (the symbolic memory check was inconclusive: " + inconclusive + ")";
  auto reduced = compute::reduceSubgraph(g, sub, boxElementBudget(hw));
  if (!reduced) {
    out.method = symbolic + " only (no reduced instance: " + reduced.error().message + ")";
    return out;
  }
  SearchOptions o = options;
  o.memo = nullptr;
  auto small = lowerPartition(reduced->graph, reduced->sub, hw, reducedGroups(sub, plan, *reduced), o);
  if (!small) {
    out.problem = "the plan does not lower on the reduced instance (" + reduced->summary() + "): " + small.error().str();
    return out;
  }
  auto check = checkPlan(reduced->graph, reduced->sub, small->lowered, small->lowered.gir, seed);
  if (!check) return check.takeError();
  PlanCheck r = std::move(*check);
  std::string how = r.method.empty() ? "element by element" : r.method;
  r.method = symbolic + "; " + how + " on the reduced instance (" + reduced->summary() + ")";
  if (!r.problem.empty()) r.problem = "on the reduced instance (" + reduced->summary() + "): " + r.problem;
  return r;
}

}  // namespace gir::search
