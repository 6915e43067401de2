// Runs of pairwise disjoint guards, for the binary-search dispatch of GuardDispatch.h.
#include "codegen/schedule/GuardDispatch.h"

#include <algorithm>
#include <numeric>

namespace gir::codegen {

size_t disjointRunEnd(const std::vector<std::optional<UnitDomain>>& domains, size_t first) {
  size_t end = first;
  for (; end < domains.size() && domains[end]; ++end) {
    const UnitDomain& d = *domains[end];
    for (size_t k = first; k < end; ++k)
      if (!(d.end <= domains[k]->begin || domains[k]->end <= d.begin)) return end;
  }
  return end;
}

std::vector<size_t> byDomainStart(const std::vector<std::optional<UnitDomain>>& domains, size_t first, size_t end) {
  std::vector<size_t> order(end - first);
  std::iota(order.begin(), order.end(), first);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return domains[a]->begin < domains[b]->begin; });
  return order;
}

}  // namespace gir::codegen
