// From per-unit numbers to GIR nodes with unit domains: consecutive units that do the same work
// (same signature) at offsets that one affine index describes form a segment, emitted as one node
// with a domain. An offset sequence is fitted as c + sum_k a_k * (u / k) over candidate divisors k
// (u / 1 = u; u % k = u - k * (u / k)), so mixed-radix unit maps (channel u/116, u%116...) fit
// exactly and only real changes of structure (another input buffer, a different piece) split.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/gir/Affine.h"

namespace gir::search {

struct UnitWork {
  std::vector<int64_t> signature;  // equal signatures: the same nodes with the same shapes
  std::vector<int64_t> offsets;    // per slice of that work, this unit's offset
};

struct UnitSegment {
  int64_t begin = 0, end = 0;
  std::vector<AffineIndex> offsets;
};

// `work[u]` empty when unit u does nothing. `divisors` are the candidate k (1 is always tried).
std::vector<UnitSegment> segmentUnits(const std::vector<std::optional<UnitWork>>& work, std::vector<int64_t> divisors);

}  // namespace gir::search
