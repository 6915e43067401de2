// Baseline (c), tvm-like (docs/baselines.md, "tvm-like"): relay's post-dominator tree and
// the GraphPartitioner's three phases over the normalized problem. Phase 2 only joins tuples,
// which our IR does not have (Concat is an n-ary injective op), so it is a no-op here.
#include "search/baselines/TvmPlanner.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace gir::search {

std::string_view opPatternName(OpPattern k) {
  switch (k) {
    case OpPattern::ElemWise: return "elemwise";
    case OpPattern::Broadcast: return "broadcast";
    case OpPattern::Injective: return "injective";
    case OpPattern::CommReduce: return "comm-reduce";
    case OpPattern::OutEWiseFusable: return "out-ewise-fusable";
    case OpPattern::Opaque: return "opaque";
  }
  return "?";
}

OpPattern nodePattern(const PlanProblem& p, int node, const TvmOptions& options) {
  switch (p.node(node).kind) {
    case OpKind::Elementwise: return OpPattern::ElemWise;
    case OpKind::Broadcast: return OpPattern::Broadcast;
    case OpKind::Transpose: case OpKind::Concat: case OpKind::Slice: case OpKind::Split: case OpKind::Reshape:
      return OpPattern::Injective;
    case OpKind::Reduce: return OpPattern::CommReduce;
    case OpKind::MatMul: case OpKind::Gemm: case OpKind::Conv: case OpKind::BatchNorm: case OpKind::Pool:
      return options.libraryEpilogue ? OpPattern::OutEWiseFusable : OpPattern::Opaque;
  }
  return OpPattern::Opaque;
}

namespace {

OpPattern maxPattern(OpPattern a, OpPattern b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }
bool atMost(OpPattern a, OpPattern b) { return static_cast<int>(a) <= static_cast<int>(b); }

struct DomNode {
  int parent = -1;  // immediate post-dominator (a node id), -1 for none
  int depth = 1;
  OpPattern pattern = OpPattern::Opaque;  // worst pattern on any path to the parent
};

class Partitioner {
 public:
  Partitioner(const PlanProblem& p, const TvmOptions& o, Plan& plan)
      : p_(p), o_(o), plan_(plan), n_(static_cast<int>(p.nodes.size())), parent_(n_), numNodes_(n_, 1) {
    std::iota(parent_.begin(), parent_.end(), 0);
    for (int i = 0; i < n_; ++i) pattern_.push_back(nodePattern(p, i, o));
  }
  void run() {
    buildPostDom();
    for (int phase = 0; phase < 2; ++phase)
      for (int n = 0; n < n_; ++n) fuseNode(n, phase);
  }
  int find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  OpPattern groupPattern(int n) { return pattern_[find(n)]; }

 private:
  // relay: the edge pattern is the consumer's, a broadcast that does not enlarge counts elementwise.
  OpPattern edgePattern(int consumer) const {
    const PlanNode& c = p_.node(consumer);
    OpPattern k = nodePattern(p_, consumer, o_);
    if (k == OpPattern::Broadcast && !c.inputs.empty() &&
        compute::numElements(p_.graph->tensor(c.inputs[0]).dims) == c.numel)
      return OpPattern::ElemWise;
    return k;
  }
  int lca(int lhs, int rhs, OpPattern& pat) const {
    while (lhs != rhs) {
      if (lhs < 0 || rhs < 0) return -1;
      if (dom_[lhs].depth < dom_[rhs].depth) {
        pat = maxPattern(pat, dom_[rhs].pattern);
        rhs = dom_[rhs].parent;
      } else if (dom_[rhs].depth < dom_[lhs].depth) {
        pat = maxPattern(pat, dom_[lhs].pattern);
        lhs = dom_[lhs].parent;
      } else {
        pat = maxPattern(pat, maxPattern(dom_[lhs].pattern, dom_[rhs].pattern));
        lhs = dom_[lhs].parent;
        rhs = dom_[rhs].parent;
      }
    }
    return lhs;
  }
  void buildPostDom() {
    dom_.assign(n_, DomNode{});
    for (int n = n_ - 1; n >= 0; --n) {
      const auto& users = p_.users[n];
      if (p_.isOutput[index(p_.node(n).out)] || users.empty()) continue;  // extern_ref: no parent
      OpPattern pat = edgePattern(users[0]);
      int parent = users[0];
      for (size_t i = 1; i < users.size() && parent >= 0; ++i) {
        parent = lca(parent, users[i], pat);
        pat = maxPattern(pat, edgePattern(users[i]));
      }
      dom_[n].parent = parent;
      dom_[n].depth = parent >= 0 ? dom_[parent].depth + 1 : 1;
      dom_[n].pattern = pat;
    }
  }
  template <typename Cond>
  bool checkPathFrom(int src, int sink, Cond cond, std::set<int>& visited) {
    if (!visited.insert(src).second) return true;
    if (src == sink) return cond(groupPattern(src), true);
    if (!cond(groupPattern(src), false)) return false;
    for (int u : p_.users[src])
      if (!checkPathFrom(u, sink, cond, visited)) return false;
    return true;
  }
  template <typename Cond>
  bool checkPath(int src, int sink, Cond cond) {
    std::set<int> visited;
    for (int u : p_.users[src])
      if (!checkPathFrom(u, sink, cond, visited)) return false;
    return true;
  }
  void mergeInto(int child, int target) {
    child = find(child);
    target = find(target);
    if (child == target) return;
    numNodes_[target] += numNodes_[child];
    parent_[child] = target;
    pattern_[target] = maxPattern(pattern_[child], pattern_[target]);
  }
  void commitFuse(int src, int sink, std::set<int>& visited) {
    if (src == sink || !visited.insert(src).second) return;
    mergeInto(src, sink);
    for (int u : p_.users[src]) commitFuse(u, sink, visited);
  }
  // Nodes the sink's group would hold after the fusion (relay's CountFusedNodesWithNewChild).
  int fusedSize(int src, int sink) {
    std::set<int> groups{find(sink)};
    std::set<int> visited;
    std::vector<int> stack{src};
    while (!stack.empty()) {
      int x = stack.back();
      stack.pop_back();
      if (x == sink || !visited.insert(x).second) continue;
      groups.insert(find(x));
      for (int u : p_.users[x]) stack.push_back(u);
    }
    int total = 0;
    for (int g : groups) total += numNodes_[g];
    return total;
  }
  void log(int n, int consumer, const char* rule, bool accepted, std::string detail) {
    plan_.decisions.push_back({static_cast<int>(plan_.decisions.size()), n, consumer, rule, accepted, std::move(detail)});
  }
  void fuseNode(int n, int phase);

  const PlanProblem& p_;
  const TvmOptions& o_;
  Plan& plan_;
  int n_;
  std::vector<int> parent_;
  std::vector<int> numNodes_;
  std::vector<OpPattern> pattern_;
  std::vector<DomNode> dom_;
};

void Partitioner::fuseNode(int n, int phase) {
  OpPattern g = groupPattern(n);
  const DomNode& d = dom_[n];
  if (g == OpPattern::Opaque) {
    if (phase == 0) log(n, -1, "tvm.opaque", false, "library call or opaque op: never fused");
    return;
  }
  if (d.parent < 0) {
    if (phase == 0) log(n, -1, "tvm.no_post_dominator", false, "an output, or its consumers never re-converge");
    return;
  }
  int sink = d.parent;
  if (find(n) == find(sink)) return;
  if (fusedSize(n, sink) > o_.maxDepth) {
    log(n, sink, "tvm.max_depth", false, "group would exceed " + std::to_string(o_.maxDepth) + " nodes");
    return;
  }
  std::string why = "pattern to post-dominator: " + std::string(opPatternName(d.pattern));
  if (g == OpPattern::OutEWiseFusable) {
    if (phase != 0) return;
    bool ok = d.pattern == OpPattern::ElemWise &&
              checkPath(n, sink, [](OpPattern k, bool) { return atMost(k, OpPattern::Broadcast); });
    log(n, sink, ok ? "tvm.epilogue_fused" : "tvm.epilogue_not_elementwise", ok, why);
  } else if (atMost(g, OpPattern::Broadcast)) {
    if (!atMost(d.pattern, OpPattern::Injective) && d.pattern != OpPattern::CommReduce) {
      if (phase == 0) log(n, sink, "tvm.dom_pattern_too_complex", false, why);
      return;
    }
    auto cond = [](OpPattern k, bool isSink) {
      if (!isSink) return atMost(k, OpPattern::Injective);
      return atMost(k, OpPattern::Injective) || k == OpPattern::CommReduce || k == OpPattern::OutEWiseFusable;
    };
    bool ok = checkPath(n, sink, cond);
    log(n, sink, ok ? "tvm.fused_into_post_dominator" : "tvm.path_not_injective", ok, why);
    if (!ok) return;
  } else if (g == OpPattern::Injective) {
    if (phase != 1) return;  // relay defers injective fusion so anchors finish first
    bool ok = checkPath(n, sink, [](OpPattern k, bool) { return atMost(k, OpPattern::Injective); });
    log(n, sink, ok ? "tvm.injective_fused" : "tvm.injective_path_not_injective", ok, why);
    if (!ok) return;
  } else {
    if (phase == 0) log(n, sink, "tvm.reduce_never_fuses_forward", false, "a comm-reduce group is a fusion sink only");
    return;
  }
  std::set<int> visited;
  commitFuse(n, sink, visited);
}

KernelKind groupKind(const PlanProblem& p, const std::vector<int>& nodes) {
  bool reduce = false;
  for (int n : nodes) {
    if (compute::isLibraryKind(p.node(n).kind)) return KernelKind::Library;
    reduce = reduce || p.node(n).kind == OpKind::Reduce;
  }
  return reduce ? KernelKind::Input : KernelKind::Loop;
}

}  // namespace

Expected<Plan> planTvm(const PlanProblem& p, const TvmOptions& options) {
  Plan plan;
  plan.planner = "tvm";
  plan.options = "max_depth=" + std::to_string(options.maxDepth) +
                 " library_epilogue=" + (options.libraryEpilogue ? "1" : "0");
  Partitioner part(p, options, plan);
  part.run();
  std::map<int, size_t> kernelOf;  // group root -> kernel
  for (int n = 0; n < static_cast<int>(p.nodes.size()); ++n) {
    int root = part.find(n);
    auto [it, fresh] = kernelOf.emplace(root, plan.kernels.size());
    if (fresh) plan.kernels.emplace_back();
    plan.kernels[it->second].instances.push_back(n);
    plan.kernels[it->second].exports.push_back(n);
  }
  for (PlannedKernel& k : plan.kernels) k.kind = groupKind(p, k.instances);
  if (auto st = finalizePlan(p, plan); !st) return st.takeError();
  return plan;
}

}  // namespace gir::search
