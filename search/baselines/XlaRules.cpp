// Op properties and budgets of the xla-like planner (docs/baselines.md, "Op properties" and "Budget").
#include "search/baselines/XlaRules.h"

#include <algorithm>

namespace gir::search {

using compute::Dims;
using gir::ElementwiseOp;

namespace {

// The reduction's input with its extent-1 dims dropped ("after layout normalization"), and
// which of the remaining dims are reduced.
struct NormalizedReduce {
  Dims dims;
  std::vector<bool> reduced;
};

NormalizedReduce normalize(const PlanProblem& p, int n) {
  const auto& attrs = std::get<compute::ReduceAttrs>(p.op(n).attrs);
  const Dims& in = p.graph->tensor(p.op(n).inputs[0]).dims;
  NormalizedReduce r;
  for (size_t a = 0; a < in.size(); ++a) {
    if (in[a] == 1) continue;
    r.dims.push_back(in[a]);
    r.reduced.push_back(std::find(attrs.axes.begin(), attrs.axes.end(), static_cast<int>(a)) != attrs.axes.end());
  }
  return r;
}

bool rowFasterThanElemental(int64_t w) { return w >= 32 || 32 % w == 0; }
bool columnFasterThanElemental(int64_t h, int64_t w) {
  return !(h < 32 || (h < 64 && w < 32) || (h < 128 && w < 8) || (h < 256 && w < 3));
}

}  // namespace

bool isUnnestedReduce(const PlanProblem& p, int n) {
  if (p.node(n).kind != OpKind::Reduce) return false;
  NormalizedReduce r = normalize(p, n);
  size_t rank = r.dims.size();
  size_t first = rank, last = 0;  // the reduced dims must form one contiguous block
  for (size_t a = 0; a < rank; ++a)
    if (r.reduced[a]) {
      first = std::min(first, a);
      last = a;
    }
  if (first == rank) return false;  // reduces only unit dims: a copy, elemental
  int64_t h = 1, w = 1;
  for (size_t a = first; a <= last; ++a) {
    if (!r.reduced[a]) return false;
    h *= r.dims[a];
  }
  if (last + 1 == rank) return rowFasterThanElemental(h);
  for (size_t a = last + 1; a < rank; ++a) w *= r.dims[a];
  return columnFasterThanElemental(h, w);
}

int64_t reduceRatio(const PlanProblem& p, int n) {
  int64_t in = compute::numElements(p.graph->tensor(p.op(n).inputs[0]).dims);
  return in / std::max<int64_t>(1, p.node(n).numel);
}

bool isLoopFusibleProducer(const PlanProblem& p, int n) {
  switch (p.node(n).kind) {
    case OpKind::Elementwise: case OpKind::Broadcast: case OpKind::Transpose: case OpKind::Concat:
    case OpKind::Slice: case OpKind::Reshape: case OpKind::Split:
      return true;
    case OpKind::Reduce: return !isUnnestedReduce(p, n);
    case OpKind::MatMul: case OpKind::Gemm: case OpKind::Conv: case OpKind::BatchNorm: case OpKind::Pool:
      return false;
  }
  return false;
}

bool isExpensive(const PlanProblem& p, int n) {
  switch (p.node(n).kind) {
    case OpKind::Elementwise: {
      ElementwiseOp fn = std::get<compute::ElementwiseAttrs>(p.op(n).attrs).fn;
      return fn == ElementwiseOp::Log || fn == ElementwiseOp::Sigmoid || fn == ElementwiseOp::Tanh ||
             fn == ElementwiseOp::Pow;
    }
    case OpKind::Reduce: case OpKind::MatMul: case OpKind::Gemm: case OpKind::Conv: case OpKind::BatchNorm:
    case OpKind::Pool:
      return true;
    case OpKind::Broadcast: case OpKind::Transpose: case OpKind::Concat: case OpKind::Slice:
    case OpKind::Reshape: case OpKind::Split:
      return false;
  }
  return false;
}

bool isPhysicallyTransposing(const PlanProblem& p, int n) {
  if (p.node(n).kind != OpKind::Transpose) return false;
  const auto& perm = std::get<compute::TransposeAttrs>(p.op(n).attrs).perm;
  const Dims& in = p.graph->tensor(p.op(n).inputs[0]).dims;
  int previous = -1;  // input axes of non-unit dims, in output order, must stay increasing
  for (int axis : perm) {
    if (in[axis] == 1) continue;
    if (axis < previous) return true;
    previous = axis;
  }
  return false;
}

bool isAlwaysDuplicable(const PlanProblem& p, int n) { return p.node(n).kind == OpKind::Broadcast; }

bool isEffectivelyAtMostUnary(const PlanProblem& p, int n) {
  size_t outRank = p.graph->tensor(p.node(n).out).dims.size();
  int big = 0;
  for (TensorId t : p.node(n).inputs) {
    int prod = p.producer[index(t)];
    if (prod >= 0 && p.node(prod).kind == OpKind::Broadcast) continue;
    if (p.graph->tensor(t).dims.size() >= outRank) ++big;
  }
  return big <= 1;
}

bool reusesOutput(const PlanProblem& p, const std::set<int>& group, int producer) {
  std::vector<int> stack{producer};
  std::set<int> seen;
  while (!stack.empty()) {
    int x = stack.back();
    stack.pop_back();
    for (int u : p.users[x]) {
      if (!group.count(u) || !seen.insert(u).second) continue;
      const PlanNode& un = p.node(u);
      if (un.kind == OpKind::Broadcast && un.numel > p.node(x).numel) return true;
      if (un.kind == OpKind::Elementwise) stack.push_back(u);
    }
  }
  return false;
}

FusionBudget fusionBudget(const PlanProblem& p, const std::set<int>& nodes, const std::set<int>& roots) {
  FusionBudget b;
  std::set<int32_t> produced, operands;
  for (int n : nodes) produced.insert(index(p.node(n).out));
  for (int n : nodes) {
    for (TensorId t : p.node(n).inputs)
      if (!produced.count(index(t))) operands.insert(index(t));
    if (isUnnestedReduce(p, n)) {
      ++b.unnestedReductions;
      // Row reductions keep one warp's partials; column reductions a 32x33 tile twice (f32).
      NormalizedReduce r = normalize(p, n);
      b.smemBytes += (!r.reduced.empty() && r.reduced.back()) ? 32 * 4 : 2 * 32 * 33 * 4;
    }
    if (isPhysicallyTransposing(p, n)) b.smemBytes += 32 * 33 * 4;  // the tiled transpose's tile
  }
  b.operandsAndOutputs = static_cast<int>(operands.size() + roots.size());
  return b;
}

bool withinBudget(const FusionBudget& b, const XlaOptions& o) {
  return b.operandsAndOutputs <= o.maxOperandsAndOutputs && b.unnestedReductions <= o.maxUnnestedReductions &&
         b.smemBytes <= o.smemPerBlock;
}

}  // namespace gir::search
