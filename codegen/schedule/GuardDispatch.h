// Consecutive guarded pieces of a kernel (nodes, or loop groups) on pairwise disjoint unit domains:
// at most one of them runs for a unit, so their order among themselves does not matter and a binary
// search on u reaches it. A concat over 384 channel slices otherwise tested 384 guards per unit (CPU)
// or per warp (the H100 ran that kernel at 6 % of copy bandwidth). Shared by the CPU and GPU
// emitters (docs/cpu.md, docs/gpu.md).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/gir/Graph.h"

namespace gir::codegen {

// Fewer guarded pieces are tested one by one.
constexpr size_t kDispatchAtLeast = 4;

// The end of the run of pairwise disjoint guarded domains that starts at `first` (`first` itself when
// pieces[first] has no guard: nullopt).
size_t disjointRunEnd(const std::vector<std::optional<UnitDomain>>& domains, size_t first);

// The pieces [first, end) in the order the search tree splits them: by the start of their domain.
std::vector<size_t> byDomainStart(const std::vector<std::optional<UnitDomain>>& domains, size_t first, size_t end);

}  // namespace gir::codegen
