// Preprocessing: library-op classification by arithmetic intensity and memory-bound partitioning.
#include "core/compute/Preprocess.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <set>

namespace gir::compute {

int64_t tensorBytes(const Tensor& t) { return numElements(t.dims) * dtypeBytes(t.dtype); }

int64_t opFlops(const Graph& g, const Op& op) {
  const Dims& out = g.tensor(op.outputs.front()).dims;
  int64_t outElems = numElements(out);
  switch (op.kind()) {
    case OpKind::MatMul: return 2 * outElems * g.tensor(op.inputs[0]).dims.back();
    case OpKind::Gemm: {
      const auto& a = std::get<GemmAttrs>(op.attrs);
      const Dims& da = g.tensor(op.inputs[0]).dims;
      int64_t k = a.transA ? da[0] : da[1];
      return 2 * outElems * k + (op.inputs.size() > 2 ? 2 * outElems : 0);
    }
    case OpKind::Conv: {
      const Dims& w = g.tensor(op.inputs[1]).dims;  // [Cout, Cin/group, kH, kW]
      return 2 * outElems * w[1] * w[2] * w[3] + (op.inputs.size() > 2 ? outElems : 0);
    }
    case OpKind::BatchNorm: return 4 * outElems;  // subtract, scale, multiply, add per element
    case OpKind::Pool: {
      const auto& p = std::get<PoolAttrs>(op.attrs);
      return outElems * p.kernel[0] * p.kernel[1];
    }
    case OpKind::Elementwise: case OpKind::Broadcast: case OpKind::Reduce: case OpKind::Transpose:
    case OpKind::Reshape: case OpKind::Concat: case OpKind::Split: case OpKind::Slice:
      return op.kind() == OpKind::Reduce ? numElements(g.tensor(op.inputs[0]).dims) : outElems;
  }
  return 0;
}

int64_t opMinBytes(const Graph& g, const Op& op) {
  std::set<int32_t> seen;
  int64_t bytes = 0;
  for (TensorId t : op.inputs)
    if (seen.insert(index(t)).second) bytes += tensorBytes(g.tensor(t));
  for (TensorId t : op.outputs) bytes += tensorBytes(g.tensor(t));
  return bytes;
}

static LibraryDecision decide(const Graph& g, const Op& op, double ridge) {
  LibraryDecision d;
  d.op = op.id;
  d.flops = opFlops(g, op);
  d.minBytes = opMinBytes(g, op);
  d.intensity = d.minBytes > 0 ? static_cast<double>(d.flops) / static_cast<double>(d.minBytes) : 0;
  d.computeBound = d.intensity >= ridge;
  d.noTemplate = !d.computeBound && op.kind() == OpKind::Conv && convTemplate(g, op) == ConvTemplate::None;
  return d;
}

std::string LibraryDecision::verdict() const {
  if (computeBound) return "compute-bound: library call";
  return noTemplate ? "memory-bound, no GIR template: library call" : "memory-bound: lowered to GIR";
}

ConvTemplate convTemplate(const Graph& g, const Op& op) {
  if (op.kind() != OpKind::Conv) return ConvTemplate::None;
  const auto& a = std::get<ConvAttrs>(op.attrs);
  const Dims &x = g.tensor(op.inputs[0]).dims, &w = g.tensor(op.inputs[1]).dims;
  if (x.size() != 4 || w.size() != 4) return ConvTemplate::None;
  if (a.group == 1 && w[2] == 1 && w[3] == 1 && a.strides == std::vector<int64_t>{1, 1} && a.pads == std::vector<int64_t>{0, 0, 0, 0})
    return ConvTemplate::Pointwise;
  if (a.group == x[1] && w[0] == x[1] && w[1] == 1) return ConvTemplate::Depthwise;
  return ConvTemplate::None;
}

static int findRoot(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// Level of an op = the most compute-bound calls on any path from the graph inputs to it. Joining
// only memory-bound neighbours of equal level keeps every path between two members of a subgraph
// inside it, so subgraphs and library calls still form a DAG.
static std::vector<int> computeLevels(const Graph& g, const std::vector<bool>& computeBound) {
  auto producers = g.producers();
  std::vector<int> level(g.ops.size(), 0);
  for (const Op& op : g.ops)
    for (TensorId t : op.inputs)
      if (auto p = producers[index(t)])
        level[index(op.id)] = std::max(level[index(op.id)], level[index(*p)] + (computeBound[index(*p)] ? 1 : 0));
  // Then push memory-bound ops as late as their consumers allow (a bias broadcast joins the op
  // that uses it). Levels stay monotone along every edge, which is all the argument above needs.
  auto consumers = g.consumers();
  for (int i = static_cast<int>(g.ops.size()) - 1; i >= 0; --i) {
    if (computeBound[i]) continue;
    int latest = INT32_MAX;
    for (TensorId t : g.ops[i].outputs)
      for (OpId c : consumers[index(t)]) latest = std::min(latest, level[index(c)]);
    if (latest != INT32_MAX && latest > level[i]) level[i] = latest;
  }
  return level;
}

void fillSubgraphBoundary(const Graph& g, Subgraph& s, const std::vector<int>& subgraphOf, int self) {
  auto producers = g.producers();
  auto consumers = g.consumers();
  std::set<int32_t> ins, outs;
  std::set<int32_t> graphOutputs;
  for (TensorId t : g.outputs) graphOutputs.insert(index(t));
  for (OpId id : s.ops) {
    for (TensorId t : g.op(id).inputs) {
      auto p = producers[index(t)];
      if (!p || subgraphOf[index(*p)] != self) ins.insert(index(t));
    }
    for (TensorId t : g.op(id).outputs) {
      bool usedOutside = graphOutputs.count(index(t)) > 0;
      for (OpId c : consumers[index(t)]) usedOutside = usedOutside || subgraphOf[index(c)] != self;
      if (usedOutside) outs.insert(index(t));
    }
  }
  for (int32_t t : ins) s.inputs.push_back(TensorId{t});
  for (int32_t t : outs) s.outputs.push_back(TensorId{t});
  s.minBytes = 0;
  for (TensorId t : s.inputs) s.minBytes += tensorBytes(g.tensor(t));
  for (TensorId t : s.outputs) s.minBytes += tensorBytes(g.tensor(t));
}

Expected<PreprocessResult> preprocess(const Graph& g, const HardwareDesc& hw) {
  PreprocessResult r;
  r.target = hw.name;
  r.ridgeFlopsPerByte = hw.ridgePointFlopsPerByte();
  if (r.ridgeFlopsPerByte <= 0) return makeError("target '" + hw.name + "' has no peak compute rate or DRAM bandwidth");
  std::vector<bool> computeBound(g.ops.size(), false);
  for (const Op& op : g.ops) {
    if (!isLibraryKind(op.kind())) continue;
    r.library.push_back(decide(g, op, r.ridgeFlopsPerByte));
    computeBound[index(op.id)] = r.library.back().libraryCall();
  }
  std::vector<int> level = computeLevels(g, computeBound);
  std::vector<int> parent(g.ops.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto producers = g.producers();
  for (const Op& op : g.ops) {
    if (computeBound[index(op.id)]) continue;
    for (TensorId t : op.inputs) {
      auto p = producers[index(t)];
      if (p && !computeBound[index(*p)] && level[index(*p)] == level[index(op.id)])
        parent[findRoot(parent, index(*p))] = findRoot(parent, index(op.id));
    }
  }
  r.subgraphOf.assign(g.ops.size(), -1);
  std::vector<int> rootToSubgraph(g.ops.size(), -1);
  for (const Op& op : g.ops) {
    if (computeBound[index(op.id)]) continue;
    int root = findRoot(parent, index(op.id));
    if (rootToSubgraph[root] < 0) {
      rootToSubgraph[root] = static_cast<int>(r.subgraphs.size());
      r.subgraphs.emplace_back();
    }
    r.subgraphOf[index(op.id)] = rootToSubgraph[root];
    r.subgraphs[rootToSubgraph[root]].ops.push_back(op.id);
  }
  for (size_t i = 0; i < r.subgraphs.size(); ++i) fillSubgraphBoundary(g, r.subgraphs[i], r.subgraphOf, static_cast<int>(i));
  return r;
}

}  // namespace gir::compute
