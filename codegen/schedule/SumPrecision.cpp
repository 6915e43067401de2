// Sign analysis over the writers of a buffer, for SumPrecision.h.
#include "codegen/schedule/SumPrecision.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace gir::codegen {

namespace {

class SignAnalysis {
 public:
  explicit SignAnalysis(const Graph& g) : g_(g) {}

  // Every value written to the buffer is >= 0 (false for a buffer no node writes).
  bool buffer(BufferId b) {
    if (!visiting_.insert(b.value).second) return false;  // a buffer that feeds itself: unknown
    bool written = false, nonNegative = true;
    for (const Node& n : g_.nodes()) {
      if (n.erased || n.isSync() || !writes(n, b)) continue;
      written = true;
      nonNegative = nonNegative && node(n);
    }
    visiting_.erase(b.value);
    return written && nonNegative;
  }

 private:
  bool writes(const Node& n, BufferId b) const {
    return std::any_of(n.outputs.begin(), n.outputs.end(), [&](SliceId s) { return g_.slice(s).buffer == b; });
  }

  bool input(const Node& n, size_t k) { return buffer(g_.slice(n.inputs[k]).buffer); }

  bool node(const Node& n) {
    switch (n.kind()) {
      case NodeKind::Move:
      case NodeKind::Broadcast:
      case NodeKind::Reduce: return input(n, 0);
      case NodeKind::Elementwise: return elementwise(n);
      case NodeKind::Sync: return true;
    }
    return false;
  }

  bool elementwise(const Node& n) {
    const auto& p = std::get<ElementwisePayload>(n.payload);
    if (isNonNegative(p.op)) return true;
    const auto& a = p.operands;
    if (p.op == ElementwiseOp::Mul && a.size() == 2 && !a[0].isImmediate() && !a[1].isImmediate() &&
        g_.slice(n.inputs[a[0].input]).samePattern(g_.slice(n.inputs[a[1].input])))
      return true;  // a square
    if (p.op == ElementwiseOp::Pow && a.size() == 2 && a[1].isImmediate() && std::fmod(a[1].value, 2.0) == 0.0) return true;  // an even power
    bool closed = p.op == ElementwiseOp::Add || p.op == ElementwiseOp::Mul || p.op == ElementwiseOp::Div || p.op == ElementwiseOp::Max ||
                  p.op == ElementwiseOp::Min || p.op == ElementwiseOp::Copy;
    if (!closed) return false;
    return std::all_of(a.begin(), a.end(), [&](const ScalarOperand& o) { return o.isImmediate() ? o.value >= 0 : input(n, o.input); });
  }

  const Graph& g_;
  std::set<uint32_t> visiting_;
};

}  // namespace

bool sumOfNonNegatives(const Graph& g, NodeId reduce) {
  const Node& n = g.node(reduce);
  if (n.kind() != NodeKind::Reduce || std::get<ReducePayload>(n.payload).op != ReduceOp::Sum) return false;
  return SignAnalysis(g).buffer(g.slice(n.inputs[0]).buffer);
}

}  // namespace gir::codegen
