// Units as loop nests in which every u/k and u%k is affine (see UnitLoops.h).
#include "codegen/schedule/UnitLoops.h"

#include <algorithm>

#include "core/gir/Printer.h"

namespace gir::codegen {

int64_t UnitNest::unitAt(const std::vector<int64_t>& vars) const {
  int64_t u = base;
  for (size_t k = 0; k < loops.size(); ++k) u += loops[k].stride * vars[k];
  return u;
}

int64_t UnitNest::linearAt(const std::vector<int64_t>& vars) const {
  int64_t l = 0;
  for (size_t k = 0; k < loops.size(); ++k) l = l * loops[k].trip + vars[k];
  return l;
}

// The divisors of one phase's u/k and u%k terms must form a chain k1 | k2 | ...: then a mixed-radix loop
// nest makes all of them affine. Phases are separate loop nests, so each has its own chain (efficientnet's
// plan divides by 4 in its first kernel and by 14 in its last). Optional divisors join only where they keep
// the chain.
Expected<std::vector<int64_t>> divisorChain(const Graph& g, const std::vector<NodeId>& nodes, int phase, const std::vector<int64_t>& extra) {
  std::vector<int64_t> chain;
  std::vector<std::pair<int64_t, NodeId>> needed;
  for (NodeId id : nodes) {
    const Node& n = g.node(id);
    for (const auto* list : {&n.inputs, &n.outputs})
      for (SliceId s : *list)
        for (const auto& t : g.slice(s).offset.terms())
          if (t.kind != UnitTermKind::Identity && t.divisor > 1) needed.push_back({t.divisor, id});
  }
  std::sort(needed.begin(), needed.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (size_t i = 1; i < needed.size(); ++i)
    if (needed[i].first % needed[i - 1].first != 0)
      return makeError("unit terms with divisors " + std::to_string(needed[i - 1].first) + " and " + std::to_string(needed[i].first) +
                           " do not nest (neither divides the other): no loop nest of phase " + std::to_string(phase) +
                           " makes both affine",
                       SourceLocation{"", 0, 0, describeNode(g, needed[i].second)});
  for (const auto& [k, id] : needed)
    if (chain.empty() || chain.back() != k) chain.push_back(k);
  for (int64_t k : extra) {
    if (k <= 1 || std::find(chain.begin(), chain.end(), k) != chain.end()) continue;
    auto pos = std::lower_bound(chain.begin(), chain.end(), k);
    bool fits = (pos == chain.begin() || k % *(pos - 1) == 0) && (pos == chain.end() || *pos % k == 0);
    if (fits) chain.insert(pos, k);
  }
  return chain;
}

namespace {

using RawNest = std::pair<int64_t, std::vector<UnitLoop>>;  // base, loops

// Units [b, e) as nests in which u/chain[i] and u%chain[i] (i < n) are affine: the part aligned to the
// largest divisor K is one mixed-radix nest; the ragged ends lie inside one K-block (u/K constant there)
// and recurse with the smaller divisors.
void decompose(int64_t b, int64_t e, const std::vector<int64_t>& chain, size_t n, std::vector<RawNest>& out) {
  if (b >= e) return;
  if (n == 0) {
    out.push_back({b, {{"", e - b, 1}}});
    return;
  }
  int64_t K = chain[n - 1];
  int64_t first = (b + K - 1) / K * K, last = e / K * K;
  if (first >= last) {  // no whole K-block: at most two partial ones
    int64_t cut = std::clamp(first, b, e);
    decompose(b, cut, chain, n - 1, out);
    decompose(cut, e, chain, n - 1, out);
    return;
  }
  decompose(b, first, chain, n - 1, out);
  std::vector<UnitLoop> loops{{"", (last - first) / K, K}};
  for (size_t i = n; i-- > 0;) {
    int64_t lower = i == 0 ? 1 : chain[i - 1];
    loops.push_back({"", chain[i] / lower, lower});
  }
  out.push_back({first, loops});
  decompose(last, e, chain, n - 1, out);
}

UnitNest finishNest(const RawNest& raw, int phase, int64_t begin, int64_t end, const std::vector<NodeId>& nodes) {
  UnitNest nest;
  nest.phase = phase;
  nest.base = raw.first;
  nest.nodes = nodes;
  int64_t count = 1;
  for (const auto& l : raw.second)
    if (l.trip > 1) nest.loops.push_back(l), count *= l.trip;
  for (size_t k = 0; k < nest.loops.size(); ++k) {
    nest.loops[k].var = "u";  // u0, u1, ... outermost first; plain u for a single loop
    if (nest.loops.size() > 1) nest.loops[k].var += std::to_string(k);
  }
  int64_t lo = raw.first, hi = raw.first;
  for (const auto& l : nest.loops) hi += (l.trip - 1) * l.stride;
  nest.begin = lo;
  nest.end = hi + 1;
  GIR_ASSERT(nest.end - nest.begin == count && nest.begin >= begin && nest.end <= end, "a nest must cover a dense unit range");
  return nest;
}

}  // namespace

// Per phase: unit ranges over which the set of active nodes (domain contains the unit) is constant.
std::vector<UnitNest> nestPhase(const Graph& g, int phase, const std::vector<NodeId>& nodes, const std::vector<int64_t>& chain) {
  std::vector<int64_t> cuts{0, g.units};
  for (NodeId id : nodes) {
    UnitDomain d = g.domainOf(g.node(id));
    cuts.push_back(std::clamp<int64_t>(d.begin, 0, g.units));
    cuts.push_back(std::clamp<int64_t>(d.end, 0, g.units));
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<std::pair<int64_t, std::vector<NodeId>>> segs;  // begin, active nodes
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    std::vector<NodeId> active;
    for (NodeId id : nodes)
      if (g.domainOf(g.node(id)).contains(cuts[i])) active.push_back(id);
    if (!segs.empty() && segs.back().second == active) continue;
    segs.push_back({cuts[i], active});
  }
  std::vector<UnitNest> nests;
  for (size_t s = 0; s < segs.size(); ++s) {
    if (segs[s].second.empty()) continue;
    int64_t b = segs[s].first, e = s + 1 < segs.size() ? segs[s + 1].first : g.units;
    std::vector<RawNest> raws;
    decompose(b, e, chain, chain.size(), raws);
    for (const auto& r : raws) nests.push_back(finishNest(r, phase, b, e, segs[s].second));
  }
  return nests;
}

}  // namespace gir::codegen
