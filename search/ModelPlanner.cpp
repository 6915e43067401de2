// The baselines and the GIR planner's whole-subgraph search side by side, then the GIR planner's pick
// among them and the baselines' groups, then checks.
#include "search/ModelPlanner.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <optional>

#include "core/compute/LibraryFusion.h"
#include "search/baselines/Planners.h"
#include "search/ScaleCheck.h"
#include "search/SideBySide.h"
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

SearchMemo* PlannerMemos::of(const std::string& planner) {
  if (planner == "gir") return &gir;
  if (planner == "eager") return &eager;
  if (planner == "xla") return &xla;
  if (planner == "tvm") return &tvm;
  return nullptr;
}

const PlannerResult* SubgraphPlans::find(const std::string& name) const {
  for (const auto& p : planners)
    if (p.planner == name) return &p;
  return nullptr;
}

namespace {

// A diagnostic as a reason inside a sentence: its text without the leading "error: ".
std::string reasonOf(const Diagnostic& d) {
  std::string s = d.str();
  return s.rfind("error: ", 0) == 0 ? s.substr(7) : s;
}

bool faster(const LoweredPlan& a, const LoweredPlan& b) {
  if (a.cost.modelledUs != b.cost.modelledUs) return a.cost.modelledUs < b.cost.modelledUs;
  return a.cost.dramBytes < b.cost.dramBytes;
}

// The subgraph's reference values for the checks of its plans: evaluated by the first check that
// runs its graph element by element, then shared (the baselines' checks run side by side). Plans
// checked at scale or symbolically never evaluate them.
class SharedReference {
 public:
  SharedReference(const compute::Graph& g, const compute::Subgraph& sub) : g_(g), sub_(sub) {}
  const Expected<ReferenceValues>& get() {
    std::call_once(once_, [this] { values_.emplace(referenceValues(g_, sub_, kPlanCheckSeed)); });
    return *values_;
  }

 private:
  const compute::Graph& g_;
  const compute::Subgraph& sub_;
  std::once_flag once_;
  std::optional<Expected<ReferenceValues>> values_;
};

// The check of one plan: at scale, symbolically, or element by element on the shared values.
Expected<PlanCheck> checkPlanOf(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, const PlanRequest& req,
                                SharedReference& reference, const LoweredPlan& plan) {
  const LoweredSubgraph& lowered = plan.lowered;
  if (checkedAtScale(g, sub)) return checkPlanAtScale(g, sub, plan, hw, req.search, kPlanCheckSeed);
  if (!interpretable(lowered.gir)) return checkPlanSymbolically(lowered.gir);  // no values needed
  const Expected<ReferenceValues>& values = reference.get();
  if (!values) return values.error();
  return checkPlan(*values, lowered, lowered.gir);
}

void validate(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, const PlanRequest& req,
              SharedReference& reference, PlannerResult& r) {
  r.checked = true;
  auto check = checkPlanOf(g, sub, hw, req, reference, r.lowered);
  if (!check) {
    r.problem = check.error().str();
    return;
  }
  r.maxRelativeError = check->maxRelativeError;
  r.valid = check->valid();
  r.problem = check->problem;
  r.checkMethod = check->method;
}

// A baseline planner's plan and its kernel groups, before lowering.
struct BaselineGroups {
  Plan plan;
  KernelGroups groups;
};

Expected<BaselineGroups> baselineGroups(const compute::Graph& g, const compute::Subgraph& sub, const PlanProblem& p, const std::string& name) {
  auto plan = runBaselinePlanner(name, p);
  if (!plan) return plan.takeError();
  KernelGroups groups = planGroups(g, sub, p, *plan);
  return BaselineGroups{std::move(*plan), std::move(groups)};
}

Expected<PlannerResult> baseline(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, const std::string& name,
                                 const BaselineGroups& b, const PlanRequest& req) {
  PlannerResult r;
  r.planner = name;
  SearchOptions search = req.search;
  search.oneKernel = true;
  search.memo = req.memos ? req.memos->of(name) : nullptr;
  auto lowered = lowerPartition(g, sub, hw, b.groups, search);
  if (!lowered) return makeError(name + " plan: " + reasonOf(lowered.error()));
  r.analytic = b.plan;
  r.lowered = std::move(*lowered);
  return r;
}

// The most ops the GIR planner fuses into one candidate (docs/scale.md, "Fusion size"), as Inductor
// caps its fusions (max_fusion_size, 64). Back ends pay for a kernel's size more than linearly: a
// transformer block fused whole (76 ops, one kernel of 550 nodes) took nvcc 66 s per architecture
// with its loops rolled and gave Ascend's flag allocation 40,000 virtual flags.
constexpr size_t kMaxFusedOps = 64;

// The whole-subgraph search, as the GIR planner's first candidate.
Expected<LoweredPlan> wholeSubgraph(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, const PlanRequest& req) {
  if (sub.ops.size() > kMaxFusedOps)
    return makeError("the subgraph has " + std::to_string(sub.ops.size()) + " ops, over the " + std::to_string(kMaxFusedOps) +
                     " one fusion may hold (docs/scale.md, fusion size)");
  KernelGroups group;
  group.ops = {sub.ops};
  group.exports = {sub.outputs};
  SearchOptions search = req.search;
  search.memo = req.memos ? req.memos->of("gir") : nullptr;
  return lowerPartition(g, sub, hw, group, search);
}

// The GIR planner: the search on the whole subgraph, and each baseline's groups; the fastest valid
// candidate wins (the partitions make it never worse than a baseline under the same model).
// `baselines`: the ones asked for (validated when checks are on); `extraPartitions`: the xla and
// tvm groups made only as starting partitions when those planners were not asked for.
Expected<PlannerResult> girPlan(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, Expected<LoweredPlan> whole,
                                const std::vector<PlannerResult>& baselines, const std::vector<PlannerResult>& extraPartitions,
                                const PlanRequest& req, SharedReference& reference, SearchStats& stats) {
  std::vector<PlannerResult> candidates;
  std::string wholeError;  // reasonOf the whole-subgraph search's error
  if (whole) {
    stats = whole->stats;
    PlannerResult r;
    r.planner = "gir";
    r.lowered = std::move(*whole);
    r.origin = "whole subgraph";
    candidates.push_back(std::move(r));
  } else {
    wholeError = reasonOf(whole.error());
  }
  // A baseline's groups are its plan: its check (when it had one) holds for the candidate too.
  for (const auto* list : {&baselines, &extraPartitions})
    for (const auto& b : *list) {
      candidates.push_back(b);
      candidates.back().planner = "gir";
      candidates.back().analytic.reset();
      candidates.back().origin = "groups of " + b.planner;
    }
  if (candidates.empty())  // nothing to validate: the whole-subgraph search's reason is the answer
    return makeError("no GIR plan: " + wholeError);
  std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) { return faster(a.lowered, b.lowered); });
  // DRAM bytes are the GIR approach's objective and the modelled time ranks the plans that keep it:
  // a plan moving more bytes than some baseline comes after every plan that does not, even when the
  // model's access-efficiency term makes it faster (a staged transpose split off into its own kernel).
  int64_t fewestBaselineBytes = INT64_MAX;
  for (const auto& b : baselines) fewestBaselineBytes = std::min(fewestBaselineBytes, b.lowered.cost.dramBytes);
  std::stable_partition(candidates.begin(), candidates.end(),
                        [&](const PlannerResult& c) { return c.lowered.cost.dramBytes <= fewestBaselineBytes; });
  std::string firstProblem;  // why the fastest candidate failed its check
  for (auto& c : candidates) {
    c.wholeSubgraphError = wholeError;
    if (!req.validate) return c;
    if (!c.checked) validate(g, sub, hw, req, reference, c);
    if (c.valid) return c;
    if (firstProblem.empty()) firstProblem = c.origin + ": " + c.problem;
  }
  return makeError("no GIR plan is valid (" + firstProblem + ")" + (wholeError.empty() ? "" : " (whole subgraph: " + wholeError + ")"));
}

// planSubgraph, naming in `failedPlanner` the planner whose plan failed (empty: none in particular).
Expected<SubgraphPlans> planOrSayWhich(const compute::Graph& g, const compute::Subgraph& sub, size_t index, const HardwareDesc& hw,
                                       const PlanRequest& req, std::string& failedPlanner) {
  SubgraphPlans out;
  out.index = index;
  PlanRequest request = req;
  // Every plan is checked once, whole (validate below): the searches of its kernel groups do not
  // check their picks again (that was most of a small model's plan time; docs/scale.md, "Plan time").
  // Without checks asked for, none run at all.
  request.search.validate = false;
  out.subgraph = &sub;
  auto p = makeProblem(g, sub, "subgraph " + std::to_string(index));
  if (!p) return p.takeError();
  out.minimalBytes = lowerBoundBytes(*p);
  auto asked = [&](const std::string& name) { return std::find(request.planners.begin(), request.planners.end(), name) != request.planners.end(); };
  for (const std::string& name : request.planners)
    if (!isPlannerName(name)) return makeError("unknown planner '" + name + "' (expected gir, eager, xla, tvm or all)");
  // The baselines asked for, with their checks; the GIR planner's whole-subgraph search; and, when
  // the GIR planner runs without any baseline, the xla and tvm groups as its starting partitions.
  bool anyBaselineAsked = std::any_of(baselinePlannerNames().begin(), baselinePlannerNames().end(), asked);
  std::vector<std::string> baselineNames;
  for (const std::string& name : baselinePlannerNames())
    if (asked(name) || (asked("gir") && !anyBaselineAsked && (name == "xla" || name == "tvm"))) baselineNames.push_back(name);
  // Baselines whose groups are equal (xla and tvm agree on half of EfficientNet-B0's subgraphs) are
  // lowered and checked once, with the same search options but the memo, which only saves time:
  // the first of them does it, checked when any of them is asked for, and the others copy its
  // lowering and verdict with their own analytic plan.
  std::vector<Expected<BaselineGroups>> planned;
  std::vector<size_t> sameAs(baselineNames.size());
  for (size_t i = 0; i < baselineNames.size(); ++i) {
    planned.push_back(baselineGroups(g, sub, *p, baselineNames[i]));
    sameAs[i] = i;
    for (size_t j = 0; j < i && sameAs[i] == i; ++j)
      if (planned[i] && planned[j] && planned[i]->groups == planned[j]->groups) sameAs[i] = j;
  }
  SharedReference reference(g, sub);
  std::vector<std::optional<Expected<PlannerResult>>> made(baselineNames.size());
  std::optional<Expected<LoweredPlan>> whole;
  std::vector<std::function<void()>> tasks;
  if (asked("gir")) tasks.push_back([&] { whole = wholeSubgraph(g, sub, hw, request); });
  for (size_t i = 0; i < baselineNames.size(); ++i) {
    if (sameAs[i] != i) continue;
    bool check = false;
    for (size_t k = 0; k < baselineNames.size(); ++k) check = check || (sameAs[k] == i && asked(baselineNames[k]));
    tasks.push_back([&, i, check] {
      if (!planned[i]) {
        made[i] = planned[i].error();
        return;
      }
      made[i] = baseline(g, sub, hw, baselineNames[i], *planned[i], request);
      if (*made[i] && request.validate && check) validate(g, sub, hw, request, reference, **made[i]);
    });
  }
  runSideBySide(tasks, request.search.threads);
  for (size_t i = 0; i < baselineNames.size(); ++i) {
    if (sameAs[i] == i) continue;
    const Expected<PlannerResult>& first = *made[sameAs[i]];
    if (!first) {  // its lowering failed: the same reason, under this planner's name
      std::string prefix = baselineNames[sameAs[i]] + " plan: ", reason = reasonOf(first.error());
      made[i] = makeError(baselineNames[i] + " plan: " + (reason.rfind(prefix, 0) == 0 ? reason.substr(prefix.size()) : reason));
      continue;
    }
    made[i] = first;
    (*made[i])->planner = baselineNames[i];
    (*made[i])->analytic = planned[i]->plan;
  }
  std::vector<PlannerResult> baselines, extraPartitions;
  std::optional<Diagnostic> baselineError;  // the first baseline asked for that has no plan
  for (size_t i = 0; i < baselineNames.size(); ++i) {
    if (!made[i]) continue;
    if (asked(baselineNames[i]) && !*made[i] && !baselineError) {
      failedPlanner = baselineNames[i];
      baselineError = made[i]->error();
    } else if (asked(baselineNames[i]) && *made[i]) {
      baselines.push_back(std::move(**made[i]));
    } else if (*made[i]) {
      extraPartitions.push_back(std::move(**made[i]));
    }
  }
  // The GIR planner runs even when a baseline failed: whether the subgraph is GIR at all is the
  // first thing the user is told (not GIR, or GIR but not compared).
  std::optional<PlannerResult> gir;
  if (asked("gir")) {
    auto r = girPlan(g, sub, hw, std::move(*whole), baselines, extraPartitions, request, reference, out.search);
    if (!r) {
      failedPlanner = "gir";
      return r.takeError();
    }
    gir = std::move(*r);
  }
  if (baselineError) {  // GIR, but not compared: the GIR plan alone, and why (planModel keeps it)
    out.notCovered = reasonOf(*baselineError);
    if (gir) out.planners.push_back(std::move(*gir));
    return out;
  }
  for (const std::string& name : request.planners) {
    if (name == "gir") {
      out.planners.push_back(*gir);
      continue;
    }
    auto it = std::find_if(baselines.begin(), baselines.end(), [&](const PlannerResult& b) { return b.planner == name; });
    out.planners.push_back(*it);
  }
  return out;
}

}  // namespace

Expected<SubgraphPlans> planSubgraph(const compute::Graph& g, const compute::Subgraph& sub, size_t index, const HardwareDesc& hw,
                                     const PlanRequest& req) {
  std::string failedPlanner;
  auto s = planOrSayWhich(g, sub, index, hw, req, failedPlanner);
  if (s && !s->notCovered.empty()) return makeError(s->notCovered);
  return s;
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
  PlannerMemos memos;  // the model's repeated blocks are searched once per planner
  PlanRequest shared = req;
  if (!shared.memos) shared.memos = &memos;
  for (const std::string& name : req.planners)
    if (!isPlannerName(name)) return makeError("unknown planner '" + name + "' (expected gir, eager, xla, tvm or all)");
  for (size_t i = 0; i < planned.subgraphs.size(); ++i) {
    std::string failedPlanner;
    auto s = planOrSayWhich(g, planned.subgraphs[i], i, hw, shared, failedPlanner);
    if (!s) {  // partial coverage: say why and plan the others (issue #18)
      SubgraphPlans none;
      none.failedPlanner = failedPlanner;
      none.index = i;
      none.subgraph = &planned.subgraphs[i];
      none.adjusted = adjusted;
      if (auto p = makeProblem(g, planned.subgraphs[i], "subgraph " + std::to_string(i))) none.minimalBytes = lowerBoundBytes(*p);
      none.notCovered = reasonOf(s.error());
      out.push_back(std::move(none));
      continue;
    }
    s->adjusted = adjusted;
    s->failedPlanner = failedPlanner;  // set when a baseline has no plan: the GIR plan is kept, not compared
    // The boundary moved before the baselines ran (their own library options never see a
    // compute-bound call: none is inside a subgraph); their options say so in the decision log.
    for (auto& r : s->planners)
      if (adjusted && r.analytic) r.analytic->options += " library_epilogues_folded=1";
    out.push_back(std::move(*s));
  }
  return out;
}

size_t coveredSubgraphs(const std::vector<SubgraphPlans>& plans) {
  return static_cast<size_t>(std::count_if(plans.begin(), plans.end(), [](const SubgraphPlans& s) { return s.notCovered.empty(); }));
}

std::string firstNotCovered(const std::vector<SubgraphPlans>& plans) {
  for (const auto& s : plans)
    if (!s.notCovered.empty()) return "subgraph " + std::to_string(s.index) + ": " + s.notCovered;
  return "";
}

}  // namespace gir::search
