// Stage C of the xla-like planner, GpuMultiOutputFusion (docs/baselines.md, "Stage C: multi-output
// fusion"): sibling fusion of independent groups that read the same tensor over the same loop shape, and
// producer-consumer fusion that lets a consumer also store its producer's result.
#include <algorithm>
#include <map>

#include "search/baselines/XlaGroups.h"

namespace gir::search {

namespace {

// The reduce (or tiled transpose) a fusion is emitted around, or -1 for a loop fusion.
int heroOf(const PlanProblem& p, const XlaGroups& gs, int g) {
  for (int n : gs.group(g).nodes)
    if (isUnnestedReduce(p, n)) return n;
  for (int n : gs.group(g).nodes)
    if (isPhysicallyTransposing(p, n)) return n;
  return -1;
}

// Loop shape: the reduction's input for a reduce hero, else the largest stored output; shapes
// equal up to a reshape compare by element count.
int64_t loopElements(const PlanProblem& p, const XlaGroups& gs, int g) {
  int hero = heroOf(p, gs, g);
  if (hero >= 0 && p.node(hero).kind == OpKind::Reduce)
    return compute::numElements(p.graph->tensor(p.op(hero).inputs[0]).dims);
  int64_t most = 0;
  for (int r : gs.group(g).roots) most = std::max(most, p.node(r).numel);
  return most;
}

bool heroesCompatible(const PlanProblem& p, const XlaGroups& gs, int a, int b) {
  int ha = heroOf(p, gs, a), hb = heroOf(p, gs, b);
  if (ha < 0 || hb < 0) return true;
  if (p.node(ha).kind != p.node(hb).kind) return false;  // never a reduction with a transpose
  const auto& ia = p.graph->tensor(p.op(ha).inputs[0]).dims;
  const auto& ib = p.graph->tensor(p.op(hb).inputs[0]).dims;
  if (ia != ib || p.graph->tensor(p.node(ha).out).dims != p.graph->tensor(p.node(hb).out).dims) return false;
  if (p.node(ha).kind == OpKind::Reduce)
    return std::get<compute::ReduceAttrs>(p.op(ha).attrs).axes == std::get<compute::ReduceAttrs>(p.op(hb).attrs).axes;
  return std::get<compute::TransposeAttrs>(p.op(ha).attrs).perm == std::get<compute::TransposeAttrs>(p.op(hb).attrs).perm;
}

// MOF(2) > fusion(1) > plain op(0).
int priority(const XlaGroups& gs, int g) { return gs.group(g).roots.size() > 1 ? 2 : gs.isFusion(g) ? 1 : 0; }

std::set<int> unionOf(const std::set<int>& a, const std::set<int>& b) {
  std::set<int> u = a;
  u.insert(b.begin(), b.end());
  return u;
}

bool fitsTogether(const PlanProblem& p, const XlaGroups& gs, const XlaOptions& o, int a, int b) {
  return withinBudget(fusionBudget(p, unionOf(gs.group(a).nodes, gs.group(b).nodes),
                                   unionOf(gs.group(a).roots, gs.group(b).roots)), o);
}

// Downstream sets of the siblings of one tensor, computed once per group and dropped after
// every fusion (a fusion changes which groups reach which).
class ReachCache {
 public:
  explicit ReachCache(const XlaGroups& gs) : gs_(gs) {}
  bool connected(int a, int b) { return down(a).count(b) || down(b).count(a); }
  void clear() { down_.clear(); }

 private:
  const std::set<int>& down(int g) {
    auto it = down_.find(g);
    if (it == down_.end()) it = down_.emplace(g, gs_.downstream(g)).first;
    return it->second;
  }
  const XlaGroups& gs_;
  std::map<int, std::set<int>> down_;
};

const char* siblingRule(const PlanProblem& p, const XlaGroups& gs, const XlaOptions& o, ReachCache& reach, int i,
                        int j) {
  // All checks must pass; the order only picks the reported rule. Connectivity (cached walks)
  // comes before the budget, whose set unions of large groups cost more (measured by bench_plan).
  if (gs.isLibrary(j)) return "xla.mof_not_root_capable";
  if (loopElements(p, gs, i) != loopElements(p, gs, j)) return "xla.mof_loop_shape";
  if (!heroesCompatible(p, gs, i, j)) return "xla.mof_heroes";
  if (reach.connected(i, j)) return "xla.mof_connected";
  if (!fitsTogether(p, gs, o, i, j)) return "xla.budget";
  return nullptr;
}

void fuseSiblings(const PlanProblem& p, XlaGroups& gs, const XlaOptions& o, TensorId t, Plan& plan) {
  std::vector<int> sibs = gs.readersOf(t);
  ReachCache reach(gs);
  std::stable_sort(sibs.begin(), sibs.end(), [&](int a, int b) { return priority(gs, a) > priority(gs, b); });
  for (size_t x = 0; x < sibs.size(); ++x) {
    int i = sibs[x];
    if (!gs.alive(i) || !gs.isFusion(i) || gs.isLibrary(i)) continue;
    for (size_t y = x + 1; y < sibs.size(); ++y) {
      int j = sibs[y];
      if (!gs.alive(j) || !gs.alive(i)) continue;
      const char* rule = siblingRule(p, gs, o, reach, i, j);
      logDecision(plan, gs.key(j), gs.key(i), rule ? rule : "xla.sibling_multi_output", rule == nullptr,
                  "siblings reading '" + p.graph->tensor(t).name + "'");
      if (rule) continue;
      gs.absorb(i, j);
      reach.clear();
    }
  }
}

// The producer group is also stored by one of its consumers; its own kernel disappears.
void fuseProducerConsumer(const PlanProblem& p, XlaGroups& gs, const XlaOptions& o, int pg, Plan& plan) {
  std::vector<int> consumers = gs.users(pg);
  if (consumers.size() < 2 || gs.isLibrary(pg) || gs.hasUnnestedReduce(pg)) return;
  for (int n : gs.group(pg).nodes)
    if (isPhysicallyTransposing(p, n)) return;
  std::stable_sort(consumers.begin(), consumers.end(), [&](int a, int b) { return priority(gs, a) > priority(gs, b); });
  for (int c : consumers) {
    if (gs.isLibrary(c)) continue;
    bool cycle = false;
    for (int other : gs.operands(c)) cycle = cycle || (other != pg && gs.reaches(pg, other));
    const char* rule = cycle ? "xla.mof_cycle" : !fitsTogether(p, gs, o, c, pg) ? "xla.budget" : nullptr;
    logDecision(plan, gs.key(pg), gs.key(c), rule ? rule : "xla.producer_consumer_multi_output", rule == nullptr);
    if (rule) continue;
    gs.absorb(c, pg);
    return;
  }
}

}  // namespace

void runMultiOutputFusion(const PlanProblem& p, XlaGroups& gs, const XlaOptions& o, Plan& plan) {
  // Uses before defs: node outputs latest first, then the problem's inputs.
  for (int n = static_cast<int>(p.nodes.size()) - 1; n >= 0; --n) {
    fuseSiblings(p, gs, o, p.node(n).out, plan);
    for (int g : gs.aliveInOrder())
      if (gs.group(g).roots.count(n)) {
        fuseProducerConsumer(p, gs, o, g, plan);
        break;
      }
  }
  std::set<int32_t> inputs;
  for (const PlanNode& n : p.nodes)
    for (TensorId t : n.inputs)
      if (p.producer[index(t)] < 0) inputs.insert(index(t));
  for (auto it = inputs.rbegin(); it != inputs.rend(); ++it) fuseSiblings(p, gs, o, TensorId{*it}, plan);
}

}  // namespace gir::search
