// The memory-model checker decided on affine slices instead of by running the graph: the same
// findings as MemoryChecker.h, each with an isl witness, at a cost independent of units and extents
// (docs/gir.md, "Symbolic checks").
#pragma once

#include "core/Expected.h"
#include "core/gir/Graph.h"
#include "core/gir/MemoryChecker.h"

namespace gir {

// Verifies `g` (returning the verifier's error), then reports races, write-write conflicts,
// uninitialized reads, scope violations and capacity overflows with the element-level checker's
// happens-before and last-writer semantics. Each finding names a witness: buffer, element, both
// units and both nodes. `total` counts (kind, buffer, node pair) groups, not elements.
Expected<MemoryCheckReport> checkMemoryModelSymbolic(const Graph& g);

}  // namespace gir
