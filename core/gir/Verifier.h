// Structural verification of a GIR-Graph: every rule a well-formed graph obeys (docs/gir.md, "The verifier").
#pragma once

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir {

// Limits a graph must keep (docs/gir.md, "Limits"): a GPU grid has at most 2^31 - 1 blocks, so no
// back end runs more units; 2^40 elements (4 TiB of f32) is beyond any device's memory, and keeps
// element counts, byte sizes and flat indices far from int64 overflow.
constexpr int64_t kMaxUnits = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxBufferElements = int64_t{1} << 40;

// First problem found, naming the node (its number and text) and what is wrong.
Status verifyGraph(const Graph& g);

// The range of flat buffer indices a slice touches for unit u: [first, last].
std::pair<int64_t, int64_t> sliceExtent(const MemorySlice& s, int64_t u);

}  // namespace gir
