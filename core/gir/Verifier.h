// Structural verification of a GIR-Graph: every rule a well-formed graph obeys (docs/gir.md, "The verifier").
#pragma once

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir {

// First problem found, naming the node (its number and text) and what is wrong.
Status verifyGraph(const Graph& g);

// The range of flat buffer indices a slice touches for unit u: [first, last].
std::pair<int64_t, int64_t> sliceExtent(const MemorySlice& s, int64_t u);

}  // namespace gir
