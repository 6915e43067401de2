// Bounds of a slice over a whole unit domain, decided on the affine offset rather than unit by unit
// (docs/gir.md, "Symbolic checks"): the verifier's check that every access stays inside its buffer.
#pragma once

#include <cstdint>
#include <optional>

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir {

// The first unit for which a slice falls outside its buffer, and the flat range [lo, hi] it touches.
struct OutOfBounds {
  int64_t unit = 0;
  int64_t lo = 0, hi = 0;
};

// The first unit of `d` for which `s` touches an element outside [0, numel); nullopt when none does.
// Exact (isl, arbitrary precision); the cost depends on the slice's rank, not on units or extents.
// An error when the touched range of that unit does not fit in 64 bits.
Expected<std::optional<OutOfBounds>> firstOutOfBounds(const MemorySlice& s, UnitDomain d, int64_t numel);

}  // namespace gir
