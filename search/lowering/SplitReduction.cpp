// Groups of units that share output elements of a reduction, and the splits that make them.
#include "search/lowering/SplitReduction.h"

#include <iterator>
#include <map>
#include <set>

namespace gir::search {

bool splitsReduction(const IterationSpace& s, const UnitBoxes& b) {
  if (s.compute != ComputeKind::Reduce) return false;
  for (size_t d = 0; d < s.dims.size(); ++d)
    if (s.reduced[d] && b.ext[d] != s.dims[d]) return true;
  return false;
}

Expected<std::vector<std::optional<ReductionGroup>>> reductionGroups(const IterationSpace& s, const UnitBoxes& b) {
  int64_t parts = 1;
  for (size_t d = 0; d < s.dims.size(); ++d) {
    if (!s.reduced[d]) continue;
    if (s.dims[d] % b.ext[d] != 0) return makeError("the reduced dimension " + std::to_string(d) + " is not cut in equal parts");
    parts *= s.dims[d] / b.ext[d];
  }
  // Units holding the same output elements, in unit order, and the parts of the reduction they hold.
  std::map<std::vector<int64_t>, std::vector<int64_t>> members;
  std::map<std::vector<int64_t>, std::set<std::vector<int64_t>>> partsSeen;
  for (int64_t u = 0; u < b.units(); ++u) {
    if (!b.lo[u]) continue;
    std::vector<int64_t> kept, part;
    for (size_t d = 0; d < s.dims.size(); ++d) {
      int64_t lo = (*b.lo[u])[d];
      if (!s.reduced[d]) kept.push_back(lo);
      else if (lo % b.ext[d] != 0) return makeError("unit " + std::to_string(u) + "'s part of the reduction is not aligned to its extent");
      else part.push_back(lo);
    }
    if (!partsSeen[kept].insert(part).second) return makeError("two units hold the same part of a reduction");
    members[kept].push_back(u);
  }
  std::vector<std::optional<ReductionGroup>> groups(static_cast<size_t>(b.units()));
  for (const auto& [kept, units] : members) {
    if (static_cast<int64_t>(units.size()) != parts)
      return makeError("the units of an output element hold " + std::to_string(units.size()) + " of its " + std::to_string(parts) + " parts");
    ReductionGroup g{units[0], units.size() > 1 ? units[1] - units[0] : 1, parts};
    for (size_t k = 1; k < units.size(); ++k)
      if (units[k] - units[k - 1] != g.stride) return makeError("the units of an output element are not evenly spaced, so their partials are no one slice");
    for (int64_t u : units) groups[static_cast<size_t>(u)] = g;
  }
  return groups;
}

std::vector<ReductionGroup> combinedByIndex(const std::vector<std::optional<ReductionGroup>>& groups) {
  std::vector<ReductionGroup> out;
  for (size_t u = 0; u < groups.size(); ++u)
    if (groups[u] && groups[u]->leader() == static_cast<int64_t>(u)) out.push_back(*groups[u]);
  if (out.size() <= kLeaderGroups) out.clear();
  return out;
}

namespace {

// Column strips (splitReductionShapes): the kept dims before the innermost one a unit at a time,
// then the first reduced dim in the largest tile under the budget that still cuts it (an uncut one
// is a plain natural split), then the innermost dim in strips. The combiner of a strip holds all
// its partials (SplitReduction.h), so they must fit the budget too. Only the widest strip that
// fits is offered: on cpu-host a column sum over 4096x4096 took 12.1 ms in strips of 16 columns and
// 7.7 ms in strips of 32 (the CPU's prefetchers follow longer runs), which the traffic model does
// not tell apart.
std::optional<SplitShape> stripShape(const IterationSpace& s, const std::vector<int>& kept, int first, int64_t rest, int64_t budget) {
  int inner = static_cast<int>(s.dims.size()) - 1;
  if (kept.empty() || kept.back() != inner || first > inner) return std::nullopt;
  for (auto it = std::rbegin(kStripWidths); it != std::rend(kStripWidths); ++it) {
    int64_t strip = *it;
    if (strip >= s.dims[inner] || s.dims[inner] % strip != 0) continue;
    int64_t rows = s.dims[first] / 2;
    while (rows >= 1 && (s.dims[first] % rows != 0 || rest * rows * strip > budget || s.dims[first] / rows * strip > budget)) --rows;
    if (rows < 1) continue;
    std::vector<int> outer(kept.begin(), kept.end() - 1);
    outer.push_back(first);
    outer.push_back(inner);
    return SplitShape{outer, strip, rows};
  }
  return std::nullopt;
}

// The kept dims in order, the first reduced dim (-1: none), and the reduced elements besides it.
struct ReductionDims {
  std::vector<int> kept;
  int first = -1;
  int64_t rest = 1;
};
ReductionDims reductionDims(const IterationSpace& s) {
  ReductionDims r;
  for (size_t d = 0; d < s.dims.size(); ++d) {
    if (!s.reduced[d]) r.kept.push_back(static_cast<int>(d));
    else if (r.first < 0) r.first = static_cast<int>(d);
  }
  for (size_t d = 0; d < s.dims.size(); ++d)
    if (s.reduced[d] && static_cast<int>(d) != r.first) r.rest *= s.dims[d];
  return r;
}

}  // namespace

std::vector<SplitShape> splitReductionShapes(const IterationSpace& s, int64_t budget) {
  std::vector<SplitShape> out;
  if (s.compute != ComputeKind::Reduce) return out;
  auto [kept, first, rest] = reductionDims(s);  // rest: box elements besides the split dim
  if (first < 0) return out;
  // The widest kept prefix first (most units, smallest boxes), then the shorter ones; within 1,024
  // units when some shape allows it, else with as many units as the space needs (docs/scale.md).
  for (int64_t unitLimit : {int64_t{1024}, (int64_t{1} << 31) - 1}) {
  for (size_t k = kept.size() + 1; k-- > 0;) {
    int64_t whole = rest, keptUnits = 1;
    for (size_t j = 0; j < kept.size(); ++j) (j < k ? keptUnits : whole) *= s.dims[kept[j]];
    for (int64_t parts = 2; parts <= s.dims[first]; ++parts) {
      if (s.dims[first] % parts != 0) continue;
      int64_t tile = s.dims[first] / parts;
      if (whole * tile > budget) continue;
      if (keptUnits * parts <= unitLimit) {
        std::vector<int> outer(kept.begin(), kept.begin() + static_cast<long>(k));
        outer.push_back(first);
        out.push_back(SplitShape{outer, tile, 1});
      }
      break;
    }
    if (out.size() == 2) break;
  }
  if (!out.empty()) break;
  }
  if (auto strip = stripShape(s, kept, first, rest, budget)) out.push_back(*strip);
  return out;
}

std::optional<SplitShape> columnStripShape(const IterationSpace& s, int64_t budget) {
  if (s.compute != ComputeKind::Reduce) return std::nullopt;
  auto [kept, first, rest] = reductionDims(s);
  if (first < 0) return std::nullopt;
  return stripShape(s, kept, first, rest, budget);
}

}  // namespace gir::search
