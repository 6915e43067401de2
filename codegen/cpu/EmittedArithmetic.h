// What the CPU emitter's C++ computes for an elementwise op, where that differs from the op's name:
// the emitter writes it, and the cost model prices it, from the same answers (docs/cpu.md, "One loop
// nest per fused group" and "Modelled against measured").
#pragma once

#include <optional>

#include "core/gir/Graph.h"

namespace gir::codegen::cpu {

// The reciprocal (rounded to float) by which the emitter multiplies instead of dividing by an immediate
// divisor; none where it would not be a normal float (x / 0 keeps its infinities). The product is within
// about an ulp of the quotient.
std::optional<float> reciprocalOfDivisor(const ElementwisePayload& p);

// Whether the emitter divides by multiplying with the reciprocal of a divisor that is the same on every
// iteration of the innermost loop (`divisorInvariant`, codegen/schedule/LoopInvariants.h): the reciprocal
// is computed once per row, within about an ulp of the quotient, as -freciprocal-math already allows.
bool dividesByInvariantReciprocal(const ElementwisePayload& p, bool divisorInvariant);

// Whether the emitted code calls a transcendental for the op: pow by an immediate 2 compiles to a
// multiply (GCC turns powf(x, 2.0f) into x * x, exactly).
bool callsTranscendental(const ElementwisePayload& p);
// The same for a node: an elementwise node whose op calls a transcendental.
bool callsTranscendental(const Node& n);

}  // namespace gir::codegen::cpu
