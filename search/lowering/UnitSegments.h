// From per-unit numbers to GIR nodes with unit domains: consecutive units that do the same work
// (same signature) at offsets that one affine index describes form a segment, emitted as one node
// with a domain. An offset sequence is fitted as c + sum_k a_k * (u / k) over candidate divisors k
// (u / 1 = u; u % k = u - k * (u / k)), so mixed-radix unit maps (channel u/116, u%116...) fit
// exactly and only real changes of structure (another input buffer, a different piece) split.
#pragma once

#include <cstdint>
#include <vector>

#include "core/gir/Affine.h"

namespace gir::search {

// Per unit, in unit order: its work class (equal classes: the same nodes with the same shapes; -1:
// the unit does nothing) and its slices' offsets. Kept flat, one number per slice per unit, so that
// a phase of millions of units costs no allocation per unit.
class UnitOffsets {
 public:
  void add(int64_t cls, const std::vector<int64_t>& offsets);
  void addIdle() { add(-1, {}); }
  int64_t units() const { return static_cast<int64_t>(class_.size()); }
  int64_t cls(int64_t u) const { return class_[static_cast<size_t>(u)]; }
  size_t slices(int64_t u) const { return start_[static_cast<size_t>(u) + 1] - start_[static_cast<size_t>(u)]; }
  int64_t offset(int64_t u, size_t slice) const { return flat_[start_[static_cast<size_t>(u)] + slice]; }

 private:
  std::vector<int64_t> class_, flat_;
  std::vector<size_t> start_{0};
};

struct UnitSegment {
  int64_t begin = 0, end = 0;
  std::vector<AffineIndex> offsets;
};

// `divisors` are the candidate k (1 is always tried).
std::vector<UnitSegment> segmentUnits(const UnitOffsets& work, std::vector<int64_t> divisors);

}  // namespace gir::search
