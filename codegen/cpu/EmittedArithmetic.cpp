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

namespace {
bool addsOne(const Node& n, int erfInput) {
  if (n.kind() != NodeKind::Elementwise) return false;
  const auto& p = std::get<ElementwisePayload>(n.payload);
  if (p.op != ElementwiseOp::Add || p.operands.size() != 2) return false;
  for (int j = 0; j < 2; ++j)
    if (p.operands[j].input == erfInput && p.operands[1 - j].isImmediate() && p.operands[1 - j].value == 1.0) return true;
  return false;
}
}  // namespace

ErfPlusOne erfPlusOne(const Graph& g, const LoopGroup& grp, const std::vector<bool>& values) {
  size_t members = grp.nodes.size();
  ErfPlusOne f{std::vector<int>(members, -1), std::vector<int>(members, -1)};
  for (size_t k = 0; k < members; ++k) {
    const Node& erf = g.node(grp.nodes[k]);
    if (erf.kind() != NodeKind::Elementwise || std::get<ElementwisePayload>(erf.payload).op != ElementwiseOp::Erf) continue;
    BufferId out = g.slice(erf.outputs[0]).buffer;
    if (!values[out.value]) continue;
    int reader = -1, readers = 0;
    for (size_t m = k + 1; m < members; ++m) {
      const Node& n = g.node(grp.nodes[m]);
      for (size_t i = 0; i < n.inputs.size(); ++i)
        if (g.slice(n.inputs[i]).buffer == out) {
          ++readers;
          if (forwardedFrom(g, grp, m, i) == static_cast<int>(k) && addsOne(n, static_cast<int>(i))) reader = static_cast<int>(m);
        }
    }
    // The erf's operand is read at the add instead; it still holds there, as a valid graph writes each
    // element once per unit (the verifier refuses a second writer).
    if (readers != 1 || reader < 0) continue;
    f.addOf[k] = reader;
    f.erfOf[static_cast<size_t>(reader)] = static_cast<int>(k);
  }
  return f;
}

bool expOfNonPositive(const Node& n, const std::vector<bool>& nonPositive) {
  if (n.kind() != NodeKind::Elementwise) return false;
  const auto& p = std::get<ElementwisePayload>(n.payload);
  if (p.op != ElementwiseOp::Exp || p.operands.size() != 1 || p.operands[0].isImmediate()) return false;
  return nonPositive[n.inputs[static_cast<size_t>(p.operands[0].input)].value];
}

std::string_view transcendentalFunction(const Node& n, const std::vector<bool>& nonPositive, bool plusOne) {
  if (expOfNonPositive(n, nonPositive)) return kExpOfNonPositive.function;
  if (plusOne) return kOnePlusErf.function;
  return elementwiseName(std::get<ElementwisePayload>(n.payload).op);
}

}  // namespace gir::codegen::cpu
