// What every benchmark shares: the median of repeated timings (benchmarks report medians).
#pragma once

#include <algorithm>
#include <vector>

namespace gir::bench {

// The upper median of a non-empty sample (the middle one for odd sizes).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace gir::bench
