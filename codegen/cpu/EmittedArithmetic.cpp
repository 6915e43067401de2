#include "codegen/cpu/EmittedArithmetic.h"

#include <cmath>

namespace gir::codegen::cpu {

// A vector division costs 10-20x a multiply and GCC keeps `x / c` without -ffast-math: GELU's
// x / sqrt(2) was 10 % of its compute-bound loop.
std::optional<float> reciprocalOfDivisor(const ElementwisePayload& p) {
  if (p.op != ElementwiseOp::Div || p.operands.size() != 2 || !p.operands[1].isImmediate()) return std::nullopt;
  float r = static_cast<float>(1.0 / p.operands[1].value);
  if (!std::isnormal(r)) return std::nullopt;
  return r;
}

bool dividesByInvariantReciprocal(const ElementwisePayload& p, bool divisorInvariant) {
  return divisorInvariant && p.op == ElementwiseOp::Div && p.operands.size() == 2 && !p.operands[1].isImmediate();
}

// Checked in the assembly of a kernel loop. Priced as a transcendental, RMSNorm's square alone was
// modelled at 1.5 ms of a 2.0-2.5 ms kernel.
bool callsTranscendental(const ElementwisePayload& p) {
  bool square = p.op == ElementwiseOp::Pow && p.operands.size() == 2 && p.operands[1].isImmediate() && p.operands[1].value == 2.0;
  return isTranscendental(p.op) && !square;
}

bool callsTranscendental(const Node& n) {
  return n.kind() == NodeKind::Elementwise && callsTranscendental(std::get<ElementwisePayload>(n.payload));
}

}  // namespace gir::codegen::cpu
