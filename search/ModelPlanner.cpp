// Baselines first (the GIR planner starts from their groups), then the GIR search, then checks.
#include "search/ModelPlanner.h"

#include <algorithm>

#include "core/compute/LibraryFusion.h"
#include "search/baselines/Planners.h"
#include "search/ScaleCheck.h"
#include "search/templates/SubgraphCheck.h"

namespace gir::search {

const std::vector<std::string>& plannerNames() {
  static const std::vector<std::string> names{"gir", "eager", "xla", "tvm"};
  return names;
}

bool isPlannerName(const std::string& name) {
  const auto& names = plannerNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

const PlannerResult* SubgraphPlans::find(const std::string& name) const {
  for (const auto& p : planners)
    if (p.planner == name) return &p;
  return nullptr;
}

namespace {

bool faster(const LoweredPlan& a, const LoweredPlan& b) {
  if (a.cost.modelledUs != b.cost.modelledUs) return a.cost.modelledUs < b.cost.modelledUs;
  return a.cost.dramBytes < b.cost.dramBytes;
}

void validate(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, const PlanRequest& req, PlannerResult& r) {
  auto check = checkedAtScale(g, sub) ? checkPlanAtScale(g, sub, r.lowered, hw, req.search, 11)
                                      : checkPlan(g, sub, r.lowered.lowered, r.lowered.lowered.gir, 11);
  if (!check) {
    r.problem = check.error().str();
    return;
  }
  r.maxRelativeError = check->maxRelativeError;
  r.valid = check->valid();
  r.problem = check->problem;
  r.checkMethod = check->method;
}

Expected<PlannerResult> baseline(const compute::Graph& g, const compute::Subgraph& sub, const PlanProblem& p, const HardwareDesc& hw,
                                 const std::string& name, const PlanRequest& req) {
  auto plan = runBaselinePlanner(name, p);
  if (!plan) return plan.takeError();
  PlannerResult r;
  r.planner = name;
  SearchOptions search = req.search;
  search.oneKernel = true;
  auto lowered = lowerPartition(g, sub, hw, planGroups(g, sub, p, *plan), search);
  if (!lowered) return makeError(name + " plan: " + lowered.error().str());
  r.analytic = std::move(*plan);
  r.lowered = std::move(*lowered);
  return r;
}

// The most ops the GIR planner fuses into one candidate (docs/scale.md, "Fusion size"), as Inductor
// caps its fusions (max_fusion_size, 64). Back ends pay for a kernel's size more than linearly: a
// transformer block fused whole (76 ops, one kernel of 550 nodes) took nvcc 66 s per architecture
// with its loops rolled and gave Ascend's flag allocation 40,000 virtual flags.
constexpr size_t kMaxFusedOps = 64;

// The GIR planner: the search on the whole subgraph, and on each baseline's groups; the fastest
// valid candidate wins (the partitions make it never worse than a baseline under the same model).
Expected<PlannerResult> girPlan(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, const PlanProblem& p,
                                const std::vector<PlannerResult>& baselines, const PlanRequest& req, SearchStats& stats) {
  std::vector<PlannerResult> candidates;
  auto candidate = [](LoweredPlan lowered, std::string origin) {
    PlannerResult r;
    r.planner = "gir";
    r.lowered = std::move(lowered);
    r.origin = std::move(origin);
    return r;
  };
  KernelGroups wholeGroup;
  wholeGroup.ops = {sub.ops};
  wholeGroup.exports = {sub.outputs};
  std::string wholeError;
  auto whole = sub.ops.size() > kMaxFusedOps
                   ? Expected<LoweredPlan>(makeError("the subgraph has " + std::to_string(sub.ops.size()) + " ops, over the " +
                                                     std::to_string(kMaxFusedOps) + " one fusion may hold (docs/scale.md, fusion size)"))
                   : lowerPartition(g, sub, hw, wholeGroup, req.search);
  if (whole) {
    stats = whole->stats;
    candidates.push_back(candidate(std::move(*whole), "whole subgraph"));
  } else {
    wholeError = whole.error().str();
  }
  for (const auto& b : baselines) candidates.push_back(candidate(b.lowered, "groups of " + b.planner));
  if (baselines.empty())
    for (std::string name : {"xla", "tvm"}) {
      auto b = baseline(g, sub, p, hw, name, req);
      if (b) candidates.push_back(candidate(std::move(b->lowered), "groups of " + name));
    }
  std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) { return faster(a.lowered, b.lowered); });
  // DRAM bytes are the GIR approach's objective and the modelled time ranks the plans that keep it:
  // a plan moving more bytes than some baseline comes after every plan that does not, even when the
  // model's access-efficiency term makes it faster (a staged transpose split off into its own kernel).
  int64_t fewestBaselineBytes = INT64_MAX;
  for (const auto& b : baselines) fewestBaselineBytes = std::min(fewestBaselineBytes, b.lowered.cost.dramBytes);
  std::stable_partition(candidates.begin(), candidates.end(),
                        [&](const PlannerResult& c) { return c.lowered.cost.dramBytes <= fewestBaselineBytes; });
  for (auto& c : candidates) {
    c.wholeSubgraphError = wholeError;
    if (!req.validate) return c;
    validate(g, sub, hw, req, c);
    if (c.valid) return c;
  }
  return makeError("no GIR plan is valid" + (wholeError.empty() ? "" : " (whole subgraph: " + wholeError + ")"));
}

}  // namespace

Expected<SubgraphPlans> planSubgraph(const compute::Graph& g, const compute::Subgraph& sub, size_t index, const HardwareDesc& hw,
                                     const PlanRequest& req) {
  SubgraphPlans out;
  out.index = index;
  PlanRequest request = req;
  request.search.validate = req.validate && req.search.validate;  // no checks asked for: none inside the searches either
  out.subgraph = &sub;
  auto p = makeProblem(g, sub, "subgraph " + std::to_string(index));
  if (!p) return p.takeError();
  out.minimalBytes = lowerBoundBytes(*p);
  std::vector<PlannerResult> baselines;
  for (const std::string& name : baselinePlannerNames()) {
    if (std::find(request.planners.begin(), request.planners.end(), name) == request.planners.end()) continue;
    auto b = baseline(g, sub, *p, hw, name, request);
    if (!b) return b.takeError();
    if (request.validate) validate(g, sub, hw, request, *b);
    baselines.push_back(std::move(*b));
  }
  for (const std::string& name : request.planners) {
    if (name == "gir") {
      auto r = girPlan(g, sub, hw, *p, baselines, request, out.search);
      if (!r) return r.takeError();
      out.planners.push_back(std::move(*r));
      continue;
    }
    auto it = std::find_if(baselines.begin(), baselines.end(), [&](const PlannerResult& b) { return b.planner == name; });
    if (it == baselines.end()) return makeError("unknown planner '" + name + "' (expected gir, eager, xla, tvm or all)");
    out.planners.push_back(*it);
  }
  return out;
}

Expected<std::vector<SubgraphPlans>> planModel(const compute::Graph& g, const compute::PreprocessResult& pre, const HardwareDesc& hw,
                                               const PlanRequest& req) {
  std::vector<SubgraphPlans> out;
  std::shared_ptr<const compute::PreprocessResult> adjusted;
  if (req.libraryEpilogue) {
    auto folded = compute::foldLibraryEpilogues(g, pre);
    if (!folded) return folded.takeError();
    adjusted = std::make_shared<const compute::PreprocessResult>(std::move(folded->pre));
  }
  const compute::PreprocessResult& planned = adjusted ? *adjusted : pre;
  SearchMemo memo;  // the model's repeated blocks are searched once
  PlanRequest shared = req;
  if (!shared.search.memo) shared.search.memo = &memo;
  for (size_t i = 0; i < planned.subgraphs.size(); ++i) {
    auto s = planSubgraph(g, planned.subgraphs[i], i, hw, shared);
    if (!s) {
      Diagnostic d = s.error();
      d.message = "subgraph " + std::to_string(i) + ": " + d.message;
      return d;
    }
    s->adjusted = adjusted;
    // The boundary moved before the baselines ran (their own library options never see a
    // compute-bound call: none is inside a subgraph); their options say so in the decision log.
    for (auto& r : s->planners)
      if (adjusted && r.analytic) r.analytic->options += " library_epilogues_folded=1";
    out.push_back(std::move(*s));
  }
  return out;
}

}  // namespace gir::search
