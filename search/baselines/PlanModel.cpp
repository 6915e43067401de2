// The common model of the baseline planners: problem normalization and per-kernel accounting
// (docs/baselines.md, "The common model").
#include "search/baselines/PlanModel.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>

namespace gir::search {

using compute::Graph;
using compute::Op;

std::string_view kernelKindName(KernelKind k) {
  switch (k) {
    case KernelKind::Eager: return "eager";
    case KernelKind::Loop: return "loop";
    case KernelKind::Input: return "input";
    case KernelKind::MultiOutput: return "multi-output";
    case KernelKind::Library: return "library";
  }
  return "?";
}

int64_t PlanProblem::bytes(TensorId t) const { return compute::tensorBytes(graph->tensor(t)); }

// Scalar constants are folded into their consumers ("The common model"): never a DRAM read.
static bool isScalarConstant(const compute::Tensor& t) {
  return t.isConstant() && compute::numElements(t.dims) == 1;
}

static void addNodes(PlanProblem& p, const Op& op) {
  const Graph& g = *p.graph;
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    PlanNode n;
    n.id = static_cast<int>(p.nodes.size());
    n.op = op.id;
    n.output = static_cast<int>(i);
    n.kind = op.kind() == OpKind::Split ? OpKind::Slice : op.kind();
    n.fromSplit = op.kind() == OpKind::Split;
    for (TensorId t : op.inputs) {
      TensorId root = p.aliasRoot[index(t)];
      if (isScalarConstant(g.tensor(root))) continue;
      if (std::find(n.inputs.begin(), n.inputs.end(), root) == n.inputs.end()) n.inputs.push_back(root);
    }
    n.out = p.aliasRoot[index(op.outputs[i])];
    n.numel = compute::numElements(g.tensor(n.out).dims);
    p.producer[index(n.out)] = n.id;
    p.nodes.push_back(std::move(n));
  }
}

static Expected<PlanProblem> buildProblem(const Graph& g, const std::vector<OpId>& ops,
                                          const std::vector<TensorId>& outputs, std::string name) {
  PlanProblem p;
  p.graph = &g;
  p.name = std::move(name);
  p.aliasRoot.resize(g.tensors.size());
  for (size_t t = 0; t < g.tensors.size(); ++t) p.aliasRoot[t] = TensorId{static_cast<int32_t>(t)};
  p.producer.assign(g.tensors.size(), -1);
  for (OpId id : ops) {
    const Op& op = g.op(id);
    if (op.kind() != OpKind::Reshape) continue;
    if (op.inputs.size() != 1 || op.outputs.size() != 1)
      return makeError("reshape '" + op.name + "' must have one input and one output");
    p.aliasRoot[index(op.outputs[0])] = p.aliasRoot[index(op.inputs[0])];  // ops are topological
  }
  for (OpId id : ops)
    if (g.op(id).kind() != OpKind::Reshape) addNodes(p, g.op(id));
  p.users.assign(p.nodes.size(), {});
  for (const PlanNode& n : p.nodes)
    for (TensorId t : n.inputs)
      if (int prod = p.producer[index(t)]; prod >= 0) p.users[prod].push_back(n.id);
  p.isOutput.assign(g.tensors.size(), false);
  std::set<int32_t> outs;
  for (TensorId t : outputs) outs.insert(index(p.aliasRoot[index(t)]));
  for (int32_t t : outs) {
    p.isOutput[t] = true;
    p.outputs.push_back(TensorId{t});
  }
  return p;
}

Expected<PlanProblem> makeProblem(const Graph& g) {
  std::vector<OpId> ops;
  for (const Op& op : g.ops) ops.push_back(op.id);
  return buildProblem(g, ops, g.outputs, g.name);
}

Expected<PlanProblem> makeProblem(const Graph& g, const compute::Subgraph& sub, std::string name) {
  return buildProblem(g, sub.ops, sub.outputs, std::move(name));
}

int64_t elementsRead(const PlanProblem& p, const PlanNode& n, TensorId in) {
  switch (n.kind) {
    case OpKind::Elementwise: case OpKind::Broadcast: case OpKind::Transpose: case OpKind::Slice:
    case OpKind::Reshape: case OpKind::Split:
      return n.numel;
    case OpKind::Reduce: case OpKind::Concat: case OpKind::MatMul: case OpKind::Gemm: case OpKind::Conv:
    case OpKind::BatchNorm: case OpKind::Pool:
      return compute::numElements(p.graph->tensor(in).dims);
  }
  return n.numel;
}

int64_t lowerBoundBytes(const PlanProblem& p) {
  std::set<int32_t> ins;
  for (const PlanNode& n : p.nodes)
    for (TensorId t : n.inputs)
      if (p.producer[index(t)] < 0) ins.insert(index(t));
  int64_t bytes = 0;
  for (int32_t t : ins) bytes += p.bytes(TensorId{t});
  for (TensorId t : p.outputs)
    if (p.producer[index(t)] >= 0) bytes += p.bytes(t);
  return bytes;
}

}  // namespace gir::search
