// What the CPU emitter's C++ computes for an elementwise op, where that differs from the op's name:
// the emitter writes it, and the cost model prices it, from the same answers (docs/cpu.md, "One loop
// nest per fused group" and "Modelled against measured").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/schedule/FusedLoops.h"
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

// Per member of a fused loop group: GELU's 1 + erf(x), an erf whose value only a member's add of the
// immediate 1 reads, is emitted with that add as girOnePlusErf (one formula, no small-argument branch,
// no cancellation near -1; docs/cpu.md, "One loop nest per fused group"). `addOf[k]` is the add an erf
// goes into, `erfOf[k]` the erf an add takes; -1 elsewhere. `values`: per buffer id, whether it is a
// value of the loop (codegen/schedule/FusedLoops.h).
struct ErfPlusOne {
  std::vector<int> addOf, erfOf;
};
ErfPlusOne erfPlusOne(const Graph& g, const LoopGroup& grp, const std::vector<bool>& values);

// Whether n is an exp whose argument is never positive (`nonPositive`, per slice id:
// core/gir/ValueSigns.h): it is emitted as girExpNonPositive, the same values without the overflow select.
bool expOfNonPositive(const Node& n, const std::vector<bool>& nonPositive);

// A prelude function the emitter calls in place of an op's own spelling, with the name its calibrated
// rate goes by (`transcendental_gelems_by_function`, docs/hardware.md) and its pattern over $0.
struct TranscendentalForm {
  std::string_view function, pattern;
};
inline constexpr TranscendentalForm kExpOfNonPositive{"exp_nonpositive", "girExpNonPositive($0)"};
inline constexpr TranscendentalForm kOnePlusErf{"one_plus_erf", "girOnePlusErf($0)"};

// The function a transcendental node calls, by the name of its calibrated rate: one of the two forms
// above, else the op's name ("sigmoid", "erf", ...). `plusOne`: the erf is emitted with its add of 1.
std::string_view transcendentalFunction(const Node& n, const std::vector<bool>& nonPositive, bool plusOne);

}  // namespace gir::codegen::cpu
