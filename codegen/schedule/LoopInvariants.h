// Values of a fused loop group that do not change along its innermost loop (docs/cpu.md, "Numerics"): a
// per-row scalar broadcast over the row, and arithmetic on such values only. Softmax divides
// every element of a row by the row's sum; a vector division costs 10-20 multiplies, and GCC does not
// turn `x / s` with `s` invariant into one reciprocal and a multiply inside a vectorized loop, even
// under -freciprocal-math: the division pass was 40 % of the bundled softmax's time. Target-neutral: a
// back end spells the hoisted value, the cost model prices what it spells.
#pragma once

#include <cstddef>
#include <vector>

#include "codegen/schedule/FusedLoops.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

// Per member of the group: its value is the same on every iteration of the innermost loop. A member is
// when every input is: read from an invariant member, or loaded at the same element on every
// iteration (innermost stride 0; fusion keeps such a buffer read-only in the group, FusedLoops.h).
// Reductions are not.
std::vector<bool> innermostInvariant(const Graph& g, const LoopGroup& grp);

// Whether input `input` of member `k` is such a value.
bool invariantInput(const Graph& g, const LoopGroup& grp, const std::vector<bool>& invariant, size_t k, size_t input);

// Whether member k is a division (of two inputs) whose divisor is such a value.
bool invariantDivisor(const Graph& g, const LoopGroup& grp, const std::vector<bool>& invariant, size_t k);

}  // namespace gir::codegen
