// Baseline (b), xla-like (docs/baselines.md, "xla-like"): stage A, instruction fusion of single-node
// producers into consumers (first without, then with duplication); stage B, FusionMerger;
// repeated to a fixpoint like HloPassFix; then stage C, multi-output fusion (XlaMultiOutput.cpp).
#include "search/baselines/XlaPlanner.h"

#include <algorithm>
#include <cstdio>

#include "search/baselines/XlaGemmEpilogue.h"
#include "search/baselines/XlaGroups.h"

namespace gir::search {

void logDecision(Plan& plan, int producer, int consumer, std::string rule, bool accepted, std::string detail) {
  plan.decisions.push_back({static_cast<int>(plan.decisions.size()), producer, consumer, std::move(rule), accepted,
                            std::move(detail)});
}

namespace {

std::set<int> unionOf(const std::set<int>& a, const std::set<int>& b) {
  std::set<int> u = a;
  u.insert(b.begin(), b.end());
  return u;
}

// ComputeGloballyUnfusible, simplified: a producer that shrinks nothing to its output (more
// operand elements than output elements, not effectively unary) may be duplicated only if every
// user can take it; we approximate "fusible on all paths" by "no user is a library call".
std::set<int> globallyUnfusible(const PlanProblem& p) {
  std::set<int> forbidden;
  for (const PlanNode& n : p.nodes) {
    if (isEffectivelyAtMostUnary(p, n.id)) continue;
    int64_t in = 0;
    for (TensorId t : n.inputs) in += compute::numElements(p.graph->tensor(t).dims);
    if (in <= n.numel) continue;
    for (int u : p.users[n.id])
      if (compute::isLibraryKind(p.node(u).kind)) forbidden.insert(n.id);
  }
  return forbidden;
}

// ShouldFuse(consumer, producer) (docs/baselines.md, "Stage A: instruction fusion"); returns the deciding rule id.
const char* shouldFuse(const PlanProblem& p, const XlaGroups& gs, const XlaOptions& o, int pg, int c, bool dup,
                       const std::set<int>& forbidden) {
  if (gs.isFusion(pg) || gs.group(pg).roots.size() > 1) return "xla.producer_is_fusion";
  int n = *gs.group(pg).nodes.begin();
  if (compute::isLibraryKind(p.node(n).kind)) return "xla.library_boundary";
  std::set<int> merged = unionOf(gs.group(c).nodes, {n});
  if (isExpensive(p, n) && reusesOutput(p, merged, n)) return "xla.expensive_producer_reused";
  if (gs.hasUnnestedReduce(c) && isPhysicallyTransposing(p, n)) return "xla.transpose_into_reduction";
  if (!isLoopFusibleProducer(p, n)) return "xla.producer_not_loop_fusible";
  if (p.node(n).kind == OpKind::Reduce && reduceRatio(p, n) > 10 && reusesOutput(p, merged, n))
    return "xla.heavy_computation";
  if (gs.usedBesides(pg, c)) {
    if (!dup && !isAlwaysDuplicable(p, n)) return "xla.would_duplicate";
    if (dup && isExpensive(p, n)) return "xla.expensive_producer_duplicated";
    if (dup && forbidden.count(n)) return "xla.globally_unfusible";
  }
  FusionBudget before = fusionBudget(p, gs.group(c).nodes, gs.group(c).roots);
  FusionBudget after = fusionBudget(p, merged, gs.group(c).roots);
  bool fewerOperands = after.operandsAndOutputs <= before.operandsAndOutputs;
  if (!withinBudget(after, o) && !(fewerOperands && after.unnestedReductions <= o.maxUnnestedReductions &&
                                   after.smemBytes <= o.smemPerBlock))
    return "xla.budget";
  return nullptr;
}

// Visits consumers latest first; after a fusion the consumer is visited again at once.
bool fuseIntoConsumer(const PlanProblem& p, XlaGroups& gs, const XlaOptions& o, int c, bool dup,
                      const std::set<int>& forbidden, Plan& plan) {
  for (int pg : gs.operands(c)) {
    int producer = gs.key(pg);
    const char* rule = shouldFuse(p, gs, o, pg, c, dup, forbidden);
    if (rule) {
      logDecision(plan, producer, gs.key(c), rule, false);
      continue;
    }
    bool duplicated = gs.usedBesides(pg, c);
    gs.cloneInto(pg, c);
    if (!duplicated) gs.erase(pg);
    logDecision(plan, producer, gs.key(c), duplicated ? "xla.fused_duplicated" : "xla.fused", true,
                dup ? "sweep may_duplicate=1" : "sweep may_duplicate=0");
    return true;
  }
  return false;
}

}  // namespace

bool runInstructionFusion(const PlanProblem& p, XlaGroups& gs, const XlaOptions& o, bool mayDuplicate, Plan& plan) {
  std::set<int> forbidden = mayDuplicate ? globallyUnfusible(p) : std::set<int>{};
  std::vector<int> queue = gs.aliveInOrder();
  bool changed = false;
  for (auto it = queue.rbegin(); it != queue.rend(); ++it) {
    int c = *it;
    if (!gs.alive(c) || gs.isLibrary(c)) continue;
    while (gs.alive(c) && fuseIntoConsumer(p, gs, o, c, mayDuplicate, forbidden, plan)) changed = true;
  }
  return changed;
}

namespace {

std::string ratioText(double ratio) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", ratio);
  return buf;
}

// Every user must take P as a producer; returns the deciding rule id or nullptr.
const char* usersAccept(const PlanProblem& p, const XlaGroups& gs, const XlaOptions& o, int pg,
                        const std::vector<int>& users) {
  int root = gs.key(pg);
  double transposed = 0;
  for (int n : gs.group(pg).nodes)
    if (isPhysicallyTransposing(p, n)) transposed += static_cast<double>(p.node(n).numel);
  for (int u : users) {
    if (gs.isLibrary(u)) return "xla.merger_user_not_fusible";
    if (gs.hasUnnestedReduce(u) && transposed / static_cast<double>(p.node(root).numel) >= 0.5)
      return "xla.merger_transposes_most_data";
    if (!withinBudget(fusionBudget(p, unionOf(gs.group(u).nodes, gs.group(pg).nodes), gs.group(u).roots), o))
      return "xla.budget";
  }
  return nullptr;
}

bool containsExpensive(const PlanProblem& p, const XlaGroups& gs, int pg) {
  for (int n : gs.group(pg).nodes)
    if (isExpensive(p, n)) return true;
  return false;
}

// FusionMerger for one loop fusion P, the classic byte-ratio version (docs/baselines.md, "Stage B: FusionMerger").
bool tryMerge(const PlanProblem& p, XlaGroups& gs, const XlaOptions& o, int pg, Plan& plan) {
  int root = gs.key(pg);
  if (p.isOutput[index(p.node(root).out)]) return false;  // a computation root stays
  std::vector<int> users = gs.users(pg);
  if (users.empty()) return false;
  if (const char* rule = usersAccept(p, gs, o, pg, users)) {
    logDecision(plan, root, -1, rule, false);
    return false;
  }
  int64_t read = 0;
  std::set<int32_t> produced, ins;
  for (int n : gs.group(pg).nodes) produced.insert(index(p.node(n).out));
  for (int n : gs.group(pg).nodes)
    for (TensorId t : p.node(n).inputs)
      if (!produced.count(index(t))) ins.insert(index(t));
  for (int32_t t : ins) read += p.bytes(TensorId{t});
  int64_t write = p.bytes(p.node(root).out);
  auto k = static_cast<int64_t>(users.size());
  double current = static_cast<double>(read + write * (k + 1));
  double ratio = static_cast<double>(read * k) / std::max(1.0, current);
  if (ratio > o.mergerMaxByteRatio) {
    logDecision(plan, root, -1, "xla.merger_byte_ratio", false, ratioText(ratio) + " > " + ratioText(o.mergerMaxByteRatio));
    return false;
  }
  bool reused = false;
  for (int u : users) reused = reused || reusesOutput(p, unionOf(gs.group(u).nodes, gs.group(pg).nodes), root);
  bool allowExpensive = (k == 1 || (ratio < 0.3 && current > 1024)) && !reused;
  if (!allowExpensive && containsExpensive(p, gs, pg)) {
    logDecision(plan, root, -1, "xla.merger_expensive", false, "ratio " + ratioText(ratio));
    return false;
  }
  for (int u : users) gs.cloneInto(pg, u);
  gs.erase(pg);
  logDecision(plan, root, -1, "xla.merged_into_users", true,
              "ratio " + ratioText(ratio) + " into " + std::to_string(k) + " users");
  return true;
}

}  // namespace

bool runFusionMerger(const PlanProblem& p, XlaGroups& gs, const XlaOptions& o, Plan& plan) {
  bool changed = false;
  for (int pg : gs.aliveInOrder()) {
    if (!gs.alive(pg) || !gs.isFusion(pg) || gs.group(pg).roots.size() != 1) continue;
    if (gs.isLibrary(pg) || gs.hasUnnestedReduce(pg) || isPhysicallyTransposing(p, gs.key(pg))) continue;
    changed = tryMerge(p, gs, o, pg, plan) || changed;
  }
  return changed;
}

namespace {

KernelKind xlaKind(const PlanProblem& p, const XlaGroups& gs, int g) {
  if (gs.isLibrary(g)) return KernelKind::Library;
  if (gs.group(g).roots.size() > 1) return KernelKind::MultiOutput;
  for (int n : gs.group(g).nodes)
    if (isUnnestedReduce(p, n) || isPhysicallyTransposing(p, n)) return KernelKind::Input;
  return KernelKind::Loop;
}

}  // namespace

Expected<Plan> planXla(const PlanProblem& p, const XlaOptions& o) {
  Plan plan;
  plan.planner = "xla";
  plan.options = "max_args=" + std::to_string(o.maxOperandsAndOutputs) + " max_reductions=" +
                 std::to_string(o.maxUnnestedReductions) + " smem=" + std::to_string(o.smemPerBlock) +
                 " multi_output=" + (o.multiOutput ? "1" : "0");
  if (o.gemmEpilogue) plan.options += " gemm_epilogue=1";
  XlaGroups gs(p);
  if (o.gemmEpilogue) foldGemmEpilogues(p, gs, plan);
  // HloPassFix: each round changes the groups, so this ends within a few rounds per node.
  for (size_t round = 0; round <= 2 * p.nodes.size() + 1; ++round) {
    bool changed = runInstructionFusion(p, gs, o, false, plan);
    changed = runInstructionFusion(p, gs, o, true, plan) || changed;
    changed = runFusionMerger(p, gs, o, plan) || changed;
    if (!changed) break;
  }
  if (o.multiOutput) runMultiOutputFusion(p, gs, o, plan);
  for (int g : gs.aliveInOrder()) {
    PlannedKernel k;
    k.kind = xlaKind(p, gs, g);
    k.instances.assign(gs.group(g).nodes.begin(), gs.group(g).nodes.end());
    k.exports.assign(gs.group(g).roots.begin(), gs.group(g).roots.end());
    plan.kernels.push_back(std::move(k));
  }
  if (auto st = finalizePlan(p, plan); !st) return st.takeError();
  return plan;
}

}  // namespace gir::search
