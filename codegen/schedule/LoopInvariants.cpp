#include "codegen/schedule/LoopInvariants.h"

namespace gir::codegen {

bool invariantInput(const Graph& g, const LoopGroup& grp, const std::vector<bool>& invariant, size_t k, size_t input) {
  int from = forwardedFrom(g, grp, k, input);
  if (from >= 0) return invariant[static_cast<size_t>(from)];
  const std::vector<int64_t>& strides = grp.nests[k].inputs[input].strides;
  return strides.empty() || strides.back() == 0;
}

std::vector<bool> innermostInvariant(const Graph& g, const LoopGroup& grp) {
  std::vector<bool> invariant(grp.nodes.size(), false);
  if (grp.extents.empty()) return invariant;
  for (size_t k = 0; k < grp.nodes.size(); ++k) {
    if (g.node(grp.nodes[k]).kind() == NodeKind::Reduce) continue;
    bool all = true;
    for (size_t i = 0; i < grp.nests[k].inputs.size() && all; ++i) all = invariantInput(g, grp, invariant, k, i);
    invariant[k] = all;
  }
  return invariant;
}

bool invariantDivisor(const Graph& g, const LoopGroup& grp, const std::vector<bool>& invariant, size_t k) {
  const Node& n = g.node(grp.nodes[k]);
  if (n.kind() != NodeKind::Elementwise) return false;
  const auto& p = std::get<ElementwisePayload>(n.payload);
  if (p.op != ElementwiseOp::Div || p.operands.size() != 2 || p.operands[1].isImmediate()) return false;
  return invariantInput(g, grp, invariant, k, static_cast<size_t>(p.operands[1].input));
}

}  // namespace gir::codegen
