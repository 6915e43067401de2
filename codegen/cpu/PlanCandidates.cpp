// Candidate GIR-Graphs per planner (see PlanCandidates.h): the planner plumbing in one function.
#include "codegen/cpu/PlanCandidates.h"

#include "core/gir/Printer.h"
#include "search/ModelPlanner.h"

namespace gir::codegen::cpu {

namespace {

// Template variants measured per planner: units per block (the CPU's scratch-sharing group).
constexpr int64_t kUnitsPerBlock[] = {4, 1};

// A block sync, or a buffer at a block-scope level: the units of a block share scratch.
bool sharesWithinBlocks(const Graph& g) {
  for (const Node& n : g.nodes())
    if (!n.erased && n.isSync() && n.syncScope() == Scope::Block) return true;
  for (const Buffer& b : g.buffers())
    if (const LevelDecl* l = g.level(b.level); !b.erased && l && l->scope == Scope::Block) return true;
  return false;
}

}  // namespace

bool onlyGroupsUnits(const Graph& grouped, const Graph& single) {
  if (sharesWithinBlocks(grouped)) return false;
  Graph regrouped = grouped;
  regrouped.unitsPerBlock = single.unitsPerBlock;
  return printGraph(regrouped) == printGraph(single);
}

// The planners' plans from search/ModelPlanner.h (the GIR template search, and the baselines' kernel
// groups lowered with the same templates), each validated there (verifier, memory-model checker,
// reference evaluator); an invalid or failed plan is a skip with the planner's reason.
std::vector<PlanCandidate> planCandidates(const compute::Graph& model, const compute::Subgraph& sub, const HardwareDesc& hw,
                                          const std::vector<std::string>& planners) {
  std::vector<PlanCandidate> out;
  for (int64_t block : kUnitsPerBlock) {
    std::string variant = "units/block=" + std::to_string(block);
    search::PlanRequest request;
    request.planners = planners;
    request.search.unitsPerBlock = block;
    auto plans = search::planSubgraph(model, sub, 0, hw, request);
    if (!plans) {
      for (const std::string& p : planners) out.push_back({p, variant, std::nullopt, "planning failed: " + plans.error().str()});
      continue;
    }
    for (const search::PlannerResult& r : plans->planners) {
      if (!r.valid) {
        out.push_back({r.planner, variant, std::nullopt, "the planner's GIR-Graph is not valid: " + r.problem});
        continue;
      }
      out.push_back({r.planner, variant, r.lowered.lowered, ""});
    }
  }
  // A planner's 4-unit variant that only groups its 1-unit variant's units is dropped, with the reason.
  for (PlanCandidate& grouped : out) {
    if (!grouped.lowered || grouped.lowered->gir.unitsPerBlock == 1) continue;
    for (const PlanCandidate& single : out)
      if (single.planner == grouped.planner && single.lowered && single.lowered->gir.unitsPerBlock == 1 &&
          onlyGroupsUnits(grouped.lowered->gir, single.lowered->gir)) {
        grouped.lowered.reset();
        grouped.skipReason = "the same GIR-Graph as " + single.variant + " but for the units per block: its blocks share nothing";
        break;
      }
  }
  return out;
}

}  // namespace gir::codegen::cpu
