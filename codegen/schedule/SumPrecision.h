// Whether a sum may accumulate in float lanes (docs/cpu.md, "Reductions"). Sums accumulate in double
// because float lanes lose about eps * sqrt(n) * |x| to cancellation (a 4096-long column sum missed
// the check's tolerance 100x near zero). A sum of terms that are all >= 0 cannot cancel: its
// relative error stays within (terms per lane) x eps, far under the check's rtol of 1e-4.
#pragma once

#include "core/gir/Graph.h"

namespace gir::codegen {

// True when `reduce` is a sum and every node that writes its input's buffer makes values >= 0: an
// op of isNonNegative (exp, sigmoid, ...), a square (x * x, x ^ 2k), or a move, broadcast, reduce, add,
// multiply, divide, max or min of such values (immediates >= 0). A graph input is of unknown sign.
bool sumOfNonNegatives(const Graph& g, NodeId reduce);

}  // namespace gir::codegen
