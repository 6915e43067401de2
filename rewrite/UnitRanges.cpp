// Sorting per-unit dense runs and sweeping them replaces walking every element.
#include "rewrite/UnitRanges.h"

#include <algorithm>

#include "rewrite/SliceAnalysis.h"

namespace gir {

bool denseRanges(const MemorySlice& s, const UnitDomain& domain, std::vector<UnitRange>& out) {
  int64_t n = s.numel();
  if (s.contiguousWidth() != n) return false;
  for (size_t d = 0; d < s.shape.size(); ++d)
    if (s.shape[d] > 1 && s.strides[d] <= 0) return false;
  for (int64_t u = domain.begin; u < domain.end; ++u) {
    int64_t b = s.offset.eval(u);
    out.push_back(UnitRange{b, b + n, u});
  }
  return true;
}

bool boundingRanges(const MemorySlice& s, const UnitDomain& domain, std::vector<UnitRange>& out, bool& exact) {
  int64_t span = 1;
  exact = s.contiguousWidth() == s.numel();
  for (size_t d = 0; d < s.shape.size(); ++d) {
    if (s.shape[d] > 1 && s.strides[d] < 0) return false;
    if (s.shape[d] > 1 && s.strides[d] == 0) exact = false;
    span += (s.shape[d] - 1) * s.strides[d];
  }
  if (exact) span = s.numel();
  for (int64_t u = domain.begin; u < domain.end; ++u) {
    int64_t b = s.offset.eval(u);
    out.push_back(UnitRange{b, b + span, u});
  }
  return true;
}

namespace {

// Syncs touch no memory: skipped when `skipSyncs`, otherwise a sync makes the question undecidable here.
bool collect(const Graph& g, const UseDef& ud, const std::vector<SliceId>& slices, bool writers, std::vector<UnitRange>& out,
             bool skipSyncs = false) {
  for (SliceId s : slices)
    for (NodeId n : (writers ? ud.writers : ud.readers)[s.value]) {
      if (g.node(n).isSync()) {
        if (skipSyncs) continue;
        return false;
      }
      if (!denseRanges(g.slice(s), g.domainOf(g.node(n)), out)) return false;
    }
  return true;
}

bool byBegin(const UnitRange& a, const UnitRange& b) { return a.begin < b.begin || (a.begin == b.begin && a.unit < b.unit); }

// The ranges arrive as runs already in order (one slice's units at increasing offsets), so a
// natural merge sort (merge adjacent runs, O(n log runs)) beats a full sort by far.
void sortByBegin(std::vector<UnitRange>& v) {
  std::vector<size_t> starts{0};
  for (size_t i = 1; i < v.size(); ++i)
    if (byBegin(v[i], v[i - 1])) starts.push_back(i);
  while (starts.size() > 1) {
    std::vector<size_t> next;
    for (size_t k = 0; k < starts.size(); k += 2) {
      next.push_back(starts[k]);
      if (k + 1 == starts.size()) break;
      size_t end = k + 2 < starts.size() ? starts[k + 2] : v.size();
      std::inplace_merge(v.begin() + static_cast<long>(starts[k]), v.begin() + static_cast<long>(starts[k + 1]), v.begin() + static_cast<long>(end), byBegin);
    }
    starts = std::move(next);
  }
}

}  // namespace

bool exchangeScopeByRanges(const Graph& g, const UseDef& ud, const std::vector<SliceId>& in, const std::vector<SliceId>& out,
                           std::optional<Scope>& scope) {
  thread_local std::vector<UnitRange> w, r;
  w.clear();
  r.clear();
  if (!collect(g, ud, in, true, w) || !collect(g, ud, out, false, r)) return false;
  sortByBegin(w);
  for (size_t i = 1; i < w.size(); ++i)
    if (w[i].begin < w[i - 1].end) return false;  // overlapping writes: leave it to the element walk
  Scope needed = Scope::Unit;
  for (const UnitRange& rd : r) {
    auto it = std::upper_bound(w.begin(), w.end(), rd.begin, [](int64_t x, const UnitRange& y) { return x < y.end; });
    int64_t covered = rd.begin;
    for (; it != w.end() && it->begin < rd.end; ++it) {
      if (it->begin > covered) break;  // a gap: an element nobody wrote
      covered = it->end;
      if (it->unit == rd.unit) continue;
      if (g.blockOf(it->unit) != g.blockOf(rd.unit)) { scope = Scope::Device; return true; }
      needed = Scope::Block;
    }
    if (covered < rd.end) { scope = std::nullopt; return true; }
  }
  scope = needed;
  return true;
}

bool staysWithinScopeByRanges(const Graph& g, const UseDef& ud, BufferId b, Scope scope, bool& stays, int64_t& maxElements) {
  // Each access as the range its elements span: exact for dense slices, a superset for strided ones
  // (a convolution's taps inside a unit's window). Disjoint supersets prove disjoint elements, and
  // the per-instance counts over-estimate, which only makes a fits check conservative; an overlap
  // involving a superset is undecidable here.
  thread_local std::vector<UnitRange> rs;
  rs.clear();
  if (b.value >= ud.slicesOfBuffer.size()) return false;
  bool allExact = true;
  for (SliceId s : ud.slicesOfBuffer[b.value]) {
    if (g.slice(s).erased) continue;
    for (const auto* nodes : {&ud.writers[s.value], &ud.readers[s.value]})
      for (NodeId n : *nodes) {
        if (g.node(n).isSync()) continue;
        bool exact = true;
        if (!boundingRanges(g.slice(s), g.domainOf(g.node(n)), rs, exact)) return false;
        allExact = allExact && exact;
      }
  }
  for (auto& x : rs) x.unit = instanceOf(g, scope, x.unit);  // from here on: the instance
  sortByBegin(rs);
  thread_local std::vector<int64_t> perInstance;
  perInstance.assign(static_cast<size_t>(g.units), 0);
  stays = true;
  int64_t curEnd = INT64_MIN, curInst = -1;
  for (const UnitRange& x : rs) {
    if (x.begin < curEnd) {  // overlaps the run being merged
      if (x.unit != curInst) {
        if (!allExact) return false;
        stays = false;
        return true;
      }
      if (x.end > curEnd) { perInstance[curInst] += x.end - curEnd; curEnd = x.end; }
      continue;
    }
    curInst = x.unit;
    curEnd = x.end;
    perInstance[curInst] += x.end - x.begin;
  }
  maxElements = 0;
  for (int64_t c : perInstance) maxElements = std::max(maxElements, c);
  return true;
}

}  // namespace gir
