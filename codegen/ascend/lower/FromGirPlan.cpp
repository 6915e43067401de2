// Stage 1 of the GIR -> .asck lowering (FromGir.h): the schedule's phases (codegen/schedule/Phases.h) and
// unit loop nests (codegen/schedule/UnitLoops.h: every u/k and u%k affine in the loop variables, since the
// .asck index language has no division), gathered into the Ascend plan with its program orders.
#include "codegen/ascend/lower/FromGir.h"

#include <algorithm>

#include "core/gir/Printer.h"

namespace gir::ascend {

static Status assignPhases(const Graph& g, PhaseSplit split, UnitPlan& plan) {
  // Loads go early: MTE2 runs ahead of the vector pipe, and the UB budget is the layout's to keep.
  auto topo = topologicalOrder(g, LoadPlacement::Early);
  if (!topo) return makeError("the GIR graph has a cycle: it has no program order to lower");
  // The schedule's phases (codegen/schedule/Phases.h): a load or a unit-local chain sits next to its
  // consumers, so its unit-scoped results live in one phase and take a per-unit UB slot, not the whole
  // buffer across a phase split (gpt2's KV-cache loads).
  auto phases = codegen::phasesOf(g, *topo, split);
  if (!phases) return phases.takeError();
  plan.phaseOf = std::move(*phases);
  for (NodeId id : *topo) plan.phases = std::max(plan.phases, plan.phaseOf[id.value] + 1);
  auto byPhase = [&](const std::vector<NodeId>& nodes) {
    std::vector<NodeId> out;
    for (NodeId id : nodes)
      if (!g.node(id).isSync()) out.push_back(id);
    std::stable_sort(out.begin(), out.end(), [&](NodeId a, NodeId b) { return plan.phaseOf[a.value] < plan.phaseOf[b.value]; });
    return out;
  };
  plan.order = byPhase(*topo);
  plan.consumerOrder = byPhase(*topologicalOrder(g, LoadPlacement::AtFirstConsumer));
  return success();
}

Status nestUnitLoops(const Graph& g, UnitPlan& plan, const std::vector<std::vector<int64_t>>& extraDivisors) {
  plan.divisors.assign(static_cast<size_t>(plan.phases), {});
  plan.nests.clear();
  for (int p = 0; p < plan.phases; ++p) {
    const std::vector<int64_t> none;
    const auto& extra = static_cast<size_t>(p) < extraDivisors.size() ? extraDivisors[p] : none;
    std::vector<NodeId> nodes;
    for (NodeId id : plan.order)
      if (plan.phaseOf[id.value] == p) nodes.push_back(id);
    auto chain = codegen::divisorChain(g, nodes, p, extra);
    if (!chain) return chain.takeError();
    plan.divisors[p] = std::move(*chain);
    for (auto& nest : codegen::nestPhase(g, p, nodes, plan.divisors[p])) plan.nests.push_back(std::move(nest));
  }
  for (const auto& nest : plan.nests)
    if (nest.loops.size() > 8)
      return makeError("unit divisors " + std::to_string(plan.divisors[nest.phase].size()) + " deep need " +
                       std::to_string(nest.loops.size()) + " nested loops; the sync insertion handles at most 8");
  return success();
}

Expected<UnitPlan> planUnitLoops(const Graph& g, PhaseSplit split) {
  if (g.units < 1) return makeError("the GIR graph has no units");
  UnitPlan plan;
  if (auto st = assignPhases(g, split, plan); !st) return st.takeError();
  if (auto st = nestUnitLoops(g, plan, {}); !st) return st.takeError();
  return plan;
}

}  // namespace gir::ascend
