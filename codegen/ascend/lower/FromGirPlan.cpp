// Stage 1 of the GIR -> .asck lowering (FromGir.h): phases split by block and device syncs, unit segments
// with one set of active nodes, and loop nests over each segment in which every u/k and u%k of the graph's
// offsets is an affine function of the loop variables (the .asck index language has no division).
#include "codegen/ascend/lower/FromGir.h"

#include <algorithm>
#include <limits>
#include <set>

#include "core/gir/Printer.h"

namespace gir::ascend {

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

static Status assignPhases(const Graph& g, PhaseSplit split, UnitPlan& plan) {
  // Loads go early: MTE2 runs ahead of the vector pipe, and the UB budget is the layout's to keep.
  auto topo = topologicalOrder(g, LoadPlacement::Early);
  if (!topo) return makeError("the GIR graph has a cycle: it has no program order to lower");
  // The schedule's phases (codegen/schedule/Phases.h): a load or a unit-local chain sits next to its
  // consumers, so its unit-scoped results live in one phase and take a per-unit UB slot, not the whole
  // buffer across a phase split (gpt2's KV-cache loads).
  auto phases = codegen::phasesOf(g, *topo, split);
  if (!phases) return phases.takeError();
  plan.phaseOf = std::move(*phases);
  for (NodeId id : *topo) plan.phases = std::max(plan.phases, plan.phaseOf[id.value] + 1);
  auto byPhase = [&](const std::vector<NodeId>& nodes) {
    std::vector<NodeId> out;
    for (NodeId id : nodes)
      if (!g.node(id).isSync()) out.push_back(id);
    std::stable_sort(out.begin(), out.end(), [&](NodeId a, NodeId b) { return plan.phaseOf[a.value] < plan.phaseOf[b.value]; });
    return out;
  };
  plan.order = byPhase(*topo);
  plan.consumerOrder = byPhase(*topologicalOrder(g, LoadPlacement::AtFirstConsumer));
  return success();
}

// The divisors of one phase's u/k and u%k terms must form a chain k1 | k2 | ...: then a mixed-radix loop
// nest makes all of them affine. Phases are separate loop nests, so each has its own chain (efficientnet's
// plan divides by 4 in its first kernel and by 14 in its last). Optional divisors join only where they keep
// the chain.
static Status divisorChain(const Graph& g, const UnitPlan& plan, int phase, const std::vector<int64_t>& extra,
                           std::vector<int64_t>& chain) {
  std::vector<std::pair<int64_t, NodeId>> needed;
  for (NodeId id : plan.order) {
    if (plan.phaseOf[id.value] != phase) continue;
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
  return success();
}

using RawNest = std::pair<int64_t, std::vector<UnitLoop>>;  // base, loops

// Units [b, e) as nests in which u/chain[i] and u%chain[i] (i < n) are affine: the part aligned to the
// largest divisor K is one mixed-radix nest; the ragged ends lie inside one K-block (u/K constant there)
// and recurse with the smaller divisors.
static void decompose(int64_t b, int64_t e, const std::vector<int64_t>& chain, size_t n, std::vector<RawNest>& out) {
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

static UnitNest finishNest(const RawNest& raw, int phase, int64_t begin, int64_t end, const std::vector<NodeId>& nodes) {
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

// Per phase: unit ranges over which the set of active nodes (domain contains the unit) is constant.
static void segmentPhase(const Graph& g, UnitPlan& plan, int phase) {
  std::vector<NodeId> nodes;
  std::vector<int64_t> cuts{0, g.units};
  for (NodeId id : plan.order) {
    if (plan.phaseOf[id.value] != phase) continue;
    nodes.push_back(id);
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
  for (size_t s = 0; s < segs.size(); ++s) {
    if (segs[s].second.empty()) continue;
    int64_t b = segs[s].first, e = s + 1 < segs.size() ? segs[s + 1].first : g.units;
    std::vector<RawNest> raws;
    decompose(b, e, plan.divisors[phase], plan.divisors[phase].size(), raws);
    for (const auto& r : raws) plan.nests.push_back(finishNest(r, phase, b, e, segs[s].second));
  }
}

Status nestUnitLoops(const Graph& g, UnitPlan& plan, const std::vector<std::vector<int64_t>>& extraDivisors) {
  plan.divisors.assign(static_cast<size_t>(plan.phases), {});
  plan.nests.clear();
  for (int p = 0; p < plan.phases; ++p) {
    const std::vector<int64_t> none;
    const auto& extra = static_cast<size_t>(p) < extraDivisors.size() ? extraDivisors[p] : none;
    if (auto st = divisorChain(g, plan, p, extra, plan.divisors[p]); !st) return st;
    segmentPhase(g, plan, p);
  }
  for (const auto& nest : plan.nests)
    if (nest.loops.size() > 8)
      return makeError("unit divisors " + std::to_string(plan.divisors[nest.phase].size()) + " deep need " +
                       std::to_string(nest.loops.size()) + " nested loops; the sync insertion handles at most 8");
  return success();
}

Expected<UnitPlan> planUnitLoops(const Graph& g, PhaseSplit split) {
  if (g.units < 1) return makeError("the GIR graph has no units");
  UnitPlan plan;
  if (auto st = assignPhases(g, split, plan); !st) return st.takeError();
  if (auto st = nestUnitLoops(g, plan, {}); !st) return st.takeError();
  return plan;
}

}  // namespace gir::ascend
