// Candidate GIR-Graphs per planner (see PlanCandidates.h): the planner plumbing in one function.
#include "codegen/cpu/PlanCandidates.h"

#include "core/gir/Validity.h"
#include "rewrite/GreedyOptimizer.h"
#include "search/templates/RowLowering.h"

namespace gir::codegen::cpu {

const std::vector<std::string>& plannerNames() {
  static const std::vector<std::string> kNames = {"gir", "eager", "xla", "tvm"};
  return kNames;
}

namespace {

// Template variants measured per planner: who owns how many rows, and how many units share a block.
const search::RowTemplateParams kVariants[] = {{1, 4}, {1, 1}, {2, 1}};

std::string variantName(const search::RowTemplateParams& p) {
  return "rows/unit=" + std::to_string(p.rowsPerUnit) + " block=" + std::to_string(p.unitsPerBlock);
}

PlanCandidate lowerOne(const compute::Graph& model, const compute::Subgraph& sub, const HardwareDesc& hw, const std::string& planner,
                       const search::RowTemplateParams& params) {
  PlanCandidate c{planner, variantName(params), std::nullopt, ""};
  auto lowered = search::lowerRowwise(model, sub, hw, params);
  if (!lowered) {
    c.skipReason = "not lowerable by the row templates yet: " + lowered.error().str();
    return c;
  }
  if (planner == "gir") {
    Stepper stepper(lowered->gir, hw, /*checked=*/false, 1, /*recordCosts=*/false);
    GreedyResult r = runGreedy(stepper);
    if (r.stop == StopReason::StepFailed) {
      c.skipReason = "the greedy optimizer failed: " + r.failure;
      return c;
    }
    lowered->gir = stepper.graph().compacted();
  }
  // Only valid graphs are candidates: e.g. more rows per unit can overflow the unit-scope level.
  ValidityReport v = checkValidity(lowered->gir, randomInputs(lowered->gir, 1));
  if (!v.valid()) {
    c.skipReason = "the lowered graph is not valid on " + hw.name + ": " + v.str();
    return c;
  }
  c.lowered = std::move(*lowered);
  return c;
}

}  // namespace

std::vector<PlanCandidate> planCandidates(const compute::Graph& model, const compute::Subgraph& sub, const HardwareDesc& hw,
                                          const std::vector<std::string>& planners) {
  std::vector<PlanCandidate> out;
  for (const std::string& planner : planners) {
    if (planner == "xla" || planner == "tvm") {
      out.push_back({planner, "", std::nullopt,
                     "the " + planner + "-like plan has no GIR lowering yet: its fusion groups need the general template "
                     "lowering (search), which is not in the build"});
      continue;
    }
    for (const auto& params : kVariants) out.push_back(lowerOne(model, sub, hw, planner, params));
  }
  return out;
}

}  // namespace gir::codegen::cpu
