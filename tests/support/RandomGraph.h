// Seeded random per-op GIR-Graphs for property tests: chains and diamonds of elementwise, reduce,
// broadcast, transpose and row-permutation ops, each its own kernel, merged with device syncs.
#pragma once

#include <cstdint>

#include "core/gir/Graph.h"

namespace gir::test {

// One random graph: load -> compute in reg -> store per op; every hand-off of a tensor goes through
// a device sync, as GIR-Graph merging writes it (paper section 6). Deterministic in `seed`.
Graph randomMergedGraph(uint64_t seed);

}  // namespace gir::test
