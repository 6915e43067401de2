// Per-kernel accounting of a plan (docs/baselines.md, "The common model"): ext_in, ext_out, DRAM bytes,
// access bytes (reads counted with reuse), flops at the points where each instance is evaluated, and a
// topological kernel order.
#include <algorithm>
#include <map>
#include <optional>
#include <queue>
#include <set>

#include "search/baselines/PlanModel.h"

namespace gir::search {

namespace {

// Reads through views: a consumer of an eager broadcast-as-view reads the broadcast's input.
class ReadResolver {
 public:
  ReadResolver(const PlanProblem& p, const std::vector<int>& views) : p_(p), isView_(p.nodes.size(), false) {
    for (int v : views) isView_[v] = true;
  }
  // The buffer actually read for `t`, or nullopt when the view reads only folded scalars.
  std::optional<TensorId> resolve(TensorId t) const {
    for (;;) {
      int prod = p_.producer[index(t)];
      if (prod < 0 || !isView_[prod]) return t;
      if (p_.node(prod).inputs.empty()) return std::nullopt;
      t = p_.node(prod).inputs[0];
    }
  }

 private:
  const PlanProblem& p_;
  std::vector<bool> isView_;
};

struct KernelFacts {
  std::set<int> instances;
  std::set<int32_t> produced;
};

void fillInputs(const PlanProblem& p, const ReadResolver& rr, PlannedKernel& k, const KernelFacts& f) {
  std::set<int32_t> ins;
  for (int n : k.instances)
    for (TensorId t : p.node(n).inputs)
      if (auto r = rr.resolve(t); r && !f.produced.count(index(*r))) ins.insert(index(*r));
  k.inputs.clear();
  for (int32_t t : ins) k.inputs.push_back(TensorId{t});
}

// Where each instance is evaluated: at its own points if stored (or unused inside the kernel),
// else at the points its in-kernel consumers request (inlining behind a broadcast repeats it).
double evalPoints(const PlanProblem& p, int n, const KernelFacts& f, const std::set<int32_t>& stored,
                  std::map<int, double>& memo) {
  if (auto it = memo.find(n); it != memo.end()) return it->second;
  const PlanNode& node = p.node(n);
  double points = 0;
  bool usedInside = false;
  for (int c : p.users[n]) {
    if (!f.instances.count(c)) continue;
    usedInside = true;
    const PlanNode& cn = p.node(c);
    double perEval = static_cast<double>(elementsRead(p, cn, node.out)) / static_cast<double>(std::max<int64_t>(1, cn.numel));
    points += perEval * evalPoints(p, c, f, stored, memo);
  }
  if (!usedInside || stored.count(index(node.out))) points = static_cast<double>(node.numel);
  memo[n] = points;
  return points;
}

int64_t nodeFlopsPerEval(const PlanProblem& p, const PlanNode& n) {
  if (compute::isLibraryKind(n.kind)) return compute::opFlops(*p.graph, p.op(n.id));
  if (n.kind == OpKind::Reduce) return compute::numElements(p.graph->tensor(n.inputs.at(0)).dims);
  return n.numel;
}

void fillCosts(const PlanProblem& p, const ReadResolver& rr, PlannedKernel& k, const KernelFacts& f) {
  std::set<int32_t> stored, ext;
  for (TensorId t : k.outputs) stored.insert(index(t));
  for (TensorId t : k.inputs) ext.insert(index(t));
  k.dramRead = k.dramWrite = k.accessRead = k.flops = 0;
  for (TensorId t : k.inputs) k.dramRead += p.bytes(t);
  for (TensorId t : k.outputs) k.dramWrite += p.bytes(t);
  std::map<int, double> memo;
  double flops = 0, access = 0;
  for (int n : k.instances) {
    const PlanNode& node = p.node(n);
    double scale = evalPoints(p, n, f, stored, memo) / static_cast<double>(std::max<int64_t>(1, node.numel));
    flops += scale * static_cast<double>(nodeFlopsPerEval(p, node));
    for (TensorId t : node.inputs) {
      auto r = rr.resolve(t);
      if (!r || !ext.count(index(*r))) continue;
      int64_t elemBytes = compute::dtypeBytes(p.graph->tensor(*r).dtype);
      access += scale * static_cast<double>(elementsRead(p, node, t) * elemBytes);
    }
  }
  k.flops = static_cast<int64_t>(flops + 0.5);
  k.accessRead = static_cast<int64_t>(access + 0.5);
}

// Kahn's algorithm; among ready kernels the one with the smallest first instance goes first.
Status orderKernels(Plan& plan, const std::vector<std::set<int>>& deps) {
  size_t n = plan.kernels.size();
  std::vector<int> indeg(n, 0);
  std::vector<std::vector<int>> succ(n);
  for (size_t k = 0; k < n; ++k)
    for (int d : deps[k]) {
      succ[d].push_back(static_cast<int>(k));
      ++indeg[k];
    }
  auto key = [&](int k) { return plan.kernels[k].instances.empty() ? -1 : plan.kernels[k].instances.front(); };
  auto later = [&](int a, int b) { return key(a) > key(b); };
  std::priority_queue<int, std::vector<int>, decltype(later)> ready(later);
  for (size_t k = 0; k < n; ++k)
    if (indeg[k] == 0) ready.push(static_cast<int>(k));
  std::vector<PlannedKernel> ordered;
  while (!ready.empty()) {
    int k = ready.top();
    ready.pop();
    ordered.push_back(plan.kernels[k]);
    for (int s : succ[k])
      if (--indeg[s] == 0) ready.push(s);
  }
  if (ordered.size() != n) return makeError("planner '" + plan.planner + "' produced a cycle between kernels");
  plan.kernels = std::move(ordered);
  return success();
}

}  // namespace

Status finalizePlan(const PlanProblem& p, Plan& plan) {
  ReadResolver rr(p, plan.views);
  std::vector<KernelFacts> facts(plan.kernels.size());
  std::map<int32_t, int> exporter;  // tensor -> kernel that stores it (first exporter wins)
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    PlannedKernel& kernel = plan.kernels[k];
    std::sort(kernel.instances.begin(), kernel.instances.end());
    kernel.instances.erase(std::unique(kernel.instances.begin(), kernel.instances.end()), kernel.instances.end());
    std::sort(kernel.exports.begin(), kernel.exports.end());
    for (int n : kernel.instances) {
      facts[k].instances.insert(n);
      facts[k].produced.insert(index(p.node(n).out));
    }
    for (int n : kernel.exports) exporter.emplace(index(p.node(n).out), static_cast<int>(k));
  }
  std::set<int32_t> readElsewhere;
  std::vector<std::set<int>> deps(plan.kernels.size());
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    fillInputs(p, rr, plan.kernels[k], facts[k]);
    for (TensorId t : plan.kernels[k].inputs) {
      if (p.producer[index(t)] < 0) continue;
      auto it = exporter.find(index(t));
      if (it == exporter.end())
        return makeError("planner '" + plan.planner + "': a kernel reads tensor '" + p.graph->tensor(t).name +
                         "' that no kernel stores");
      readElsewhere.insert(index(t));
      deps[k].insert(it->second);
    }
  }
  for (auto [t, k] : exporter)
    if (p.isOutput[t] || readElsewhere.count(t)) plan.kernels[k].outputs.push_back(TensorId{t});
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    std::sort(plan.kernels[k].outputs.begin(), plan.kernels[k].outputs.end());
    fillCosts(p, rr, plan.kernels[k], facts[k]);
  }
  if (auto st = orderKernels(plan, deps); !st) return st;
  plan.totals = {};
  for (const PlannedKernel& k : plan.kernels) {
    plan.totals.kernels += 1;
    plan.totals.dramRead += k.dramRead;
    plan.totals.dramWrite += k.dramWrite;
    plan.totals.accessRead += k.accessRead;
    plan.totals.flops += k.flops;
  }
  plan.lowerBound = lowerBoundBytes(p);
  return success();
}

}  // namespace gir::search
