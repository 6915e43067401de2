// Range-based versions of the element-level analyses for slices that are one dense run per unit
// (the common case): O(units log units) instead of O(elements). Each returns false when some slice
// is not dense, and the caller falls back to the element-level analysis.
#pragma once

#include <optional>
#include <vector>

#include "core/gir/Graph.h"

namespace gir {

struct UnitRange {
  int64_t begin, end;  // [begin, end) in buffer elements
  int64_t unit;
};

// The dense run a slice covers for each unit of `domain`; false when the slice is not dense.
bool denseRanges(const MemorySlice& s, const UnitDomain& domain, std::vector<UnitRange>& out);

// The range of elements a slice spans for each unit of `domain` (first to last element): `exact`
// when the slice is dense (the range is its elements), otherwise a superset. False for negative strides.
bool boundingRanges(const MemorySlice& s, const UnitDomain& domain, std::vector<UnitRange>& out, bool& exact);

// Exchange scope through `in` (written) -> `out` (read after the sync): Unit, Block or Device.
// Fills `scope` (nullopt: some element read was not written). False: not decidable by ranges.
bool exchangeScopeByRanges(const Graph& g, const UseDef& ud, const std::vector<SliceId>& in, const std::vector<SliceId>& out,
                           std::optional<Scope>& scope);

// staysWithinScope by ranges; false: not decidable by ranges.
bool staysWithinScopeByRanges(const Graph& g, const UseDef& ud, BufferId b, Scope scope, bool& stays, int64_t& maxElementsPerInstance);

}  // namespace gir
