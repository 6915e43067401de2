// Element-level analyses shared by sync insertion and the merge rules.
#include "rewrite/SliceAnalysis.h"

#include <algorithm>
#include <optional>
#include <climits>
#include <map>
#include <unordered_map>

#include "core/gir/Interpreter.h"
#include "core/gir/MemoryChecker.h"
#include "core/gir/Liveness.h"
#include "rewrite/UnitRanges.h"

namespace gir {

void ElementWriters::collect(const Graph& g, const UseDef& ud, BufferId buffer, const std::vector<SliceId>& written) {
  size_ = g.buffer(buffer).numel();
  if (stamp_.size() < static_cast<size_t>(size_)) {
    stamp_.resize(static_cast<size_t>(size_), current_);
    unit_.resize(static_cast<size_t>(size_), -1);
  }
  if (++current_ == 0) {  // the stamps wrapped: clear them once
    std::fill(stamp_.begin(), stamp_.end(), 0);
    current_ = 1;
  }
  thread_local std::vector<ElementRun> runs;
  for (SliceId s : written) {
    for (NodeId w : ud.writers[s.value]) {
      UnitDomain d = g.domainOf(g.node(w));
      for (int64_t u = d.begin; u < d.end; ++u) {
        sliceRuns(g.slice(s), u, runs);
        for (const ElementRun& r : runs) {
          int64_t from = std::max<int64_t>(r.begin, 0), to = std::min(r.end, size_);
          if (from >= to) continue;
          std::fill(stamp_.begin() + from, stamp_.begin() + to, current_);
          std::fill(unit_.begin() + from, unit_.begin() + to, u);
        }
      }
    }
  }
}

int64_t instanceOf(const Graph& g, Scope scope, int64_t unit) {
  switch (scope) {
    case Scope::Lane: case Scope::Unit: return unit;
    case Scope::Block: return g.blockOf(unit);
    case Scope::Device: return 0;
  }
  return 0;
}

namespace {

// staysWithinScope over the slices' contiguous runs (sliceRuns) instead of their elements: sorted
// by start, a run that overlaps the furthest-reaching earlier run of another instance is an element
// two instances touch (any such overlap is seen there); per instance, the union of its runs is its
// footprint. Exact, at the cost of the runs; nullopt when there are not markedly fewer runs than
// elements (the element walk is then cheaper than the sort).
std::optional<bool> staysWithinScopeByRuns(const Graph& g, const UseDef& ud, BufferId buffer, Scope scope, int64_t& maxElementsPerInstance) {
  struct Run {
    int64_t begin, end, instance;
    bool operator<(const Run& o) const { return begin < o.begin; }
  };
  thread_local std::vector<Run> runs;
  thread_local std::vector<ElementRun> unitRuns;
  runs.clear();
  std::vector<std::pair<SliceId, UnitDomain>> uses;
  int64_t elements = 0, runCount = 0;
  if (buffer.value < ud.slicesOfBuffer.size())
    for (SliceId s : ud.slicesOfBuffer[buffer.value]) {
      if (g.slice(s).erased) continue;
      for (const auto* users : {&ud.writers[s.value], &ud.readers[s.value]})
        for (NodeId n : *users) {
          if (g.node(n).isSync()) continue;
          UnitDomain d = g.domainOf(g.node(n));
          const MemorySlice& sl = g.slice(s);
          elements += sl.numel() * (d.end - d.begin);
          runCount += sl.numel() / std::max<int64_t>(1, sl.contiguousWidth()) * (d.end - d.begin);
          uses.emplace_back(s, d);
        }
    }
  if (!runsPayOff(runCount, elements)) return std::nullopt;
  for (auto [s, d] : uses)
    for (int64_t u = d.begin; u < d.end; ++u) {
      sliceRuns(g.slice(s), u, unitRuns);
      for (const ElementRun& r : unitRuns) runs.push_back(Run{r.begin, r.end, instanceOf(g, scope, u)});
    }
  std::sort(runs.begin(), runs.end());
  std::vector<int64_t> reach(static_cast<size_t>(g.units), INT64_MIN), footprint(static_cast<size_t>(g.units), 0);
  int64_t furthest = INT64_MIN, furthestInstance = -1;
  for (const Run& r : runs) {
    if (r.begin < furthest && furthestInstance != r.instance) return false;
    int64_t& mine = reach[static_cast<size_t>(r.instance)];
    footprint[static_cast<size_t>(r.instance)] += std::max<int64_t>(0, r.end - std::max(r.begin, mine));
    mine = std::max(mine, r.end);
    if (r.end > furthest) {
      furthest = r.end;
      furthestInstance = r.instance;
    }
  }
  maxElementsPerInstance = 0;
  for (int64_t f : footprint) maxElementsPerInstance = std::max(maxElementsPerInstance, f);
  return true;
}

}  // namespace

bool staysWithinScope(const Graph& g, const UseDef& ud, BufferId buffer, Scope scope, int64_t& maxElementsPerInstance) {
  bool stays = false;
  if (staysWithinScopeByRanges(g, ud, buffer, scope, stays, maxElementsPerInstance)) return stays;
  if (auto byRuns = staysWithinScopeByRuns(g, ud, buffer, scope, maxElementsPerInstance)) return *byRuns;
  // Scratch reused across calls: this runs for every sync-insertion candidate.
  thread_local std::vector<int64_t> owner, perInstance, elems;
  owner.assign(static_cast<size_t>(g.buffer(buffer).numel()), -1);
  perInstance.assign(static_cast<size_t>(g.units), 0);
  auto visit = [&](SliceId s, NodeId n) {
    const Node& node = g.node(n);
    if (node.isSync()) return true;
    UnitDomain d = g.domainOf(node);
    for (int64_t u = d.begin; u < d.end; ++u) {
      int64_t inst = instanceOf(g, scope, u);
      sliceElements(g.slice(s), u, elems);
      for (int64_t e : elems) {
        if (owner[e] < 0) { owner[e] = inst; ++perInstance[inst]; }
        else if (owner[e] != inst) return false;
      }
    }
    return true;
  };
  if (buffer.value < ud.slicesOfBuffer.size())
    for (SliceId s : ud.slicesOfBuffer[buffer.value]) {
      if (g.slice(s).erased) continue;
      for (NodeId n : ud.writers[s.value]) if (!visit(s, n)) return false;
      for (NodeId n : ud.readers[s.value]) if (!visit(s, n)) return false;
    }
  maxElementsPerInstance = 0;
  for (int64_t count : perInstance) maxElementsPerInstance = std::max(maxElementsPerInstance, count);
  return true;
}

void appendAccessKey(const Graph& g, const UseDef& ud, SliceId s, std::vector<int64_t>& key) {
  const MemorySlice& sl = g.slice(s);
  key.insert(key.end(), {-1, sl.offset.constant(), static_cast<int64_t>(sl.offset.terms().size()), static_cast<int64_t>(sl.shape.size())});
  for (const UnitTerm& t : sl.offset.terms()) key.insert(key.end(), {static_cast<int64_t>(t.kind), t.divisor, t.coeff});
  key.insert(key.end(), sl.shape.begin(), sl.shape.end());
  key.insert(key.end(), sl.strides.begin(), sl.strides.end());
  for (const auto* users : {&ud.writers[s.value], &ud.readers[s.value]}) {
    key.push_back(-2);
    for (NodeId n : *users) {
      if (g.node(n).isSync()) {
        key.push_back(-3);
        continue;
      }
      UnitDomain d = g.domainOf(g.node(n));
      key.insert(key.end(), {d.begin, d.end});
    }
  }
}

bool ScopeFootprints::staysWithinScope(const Graph& g, const UseDef& ud, BufferId buffer, Scope scope, int64_t& maxElementsPerInstance) {
  key_.assign({g.units, g.unitsPerBlock, g.buffer(buffer).numel()});
  if (buffer.value < ud.slicesOfBuffer.size())
    for (SliceId s : ud.slicesOfBuffer[buffer.value])
      if (!g.slice(s).erased) appendAccessKey(g, ud, s, key_);
  uint64_t slot = uint64_t{buffer.value} * 4 + static_cast<uint64_t>(scope);
  std::optional<int64_t> kept = kept_.recall(slot, key_);
  if (!kept) {
    int64_t maxElements = 0;
    kept = gir::staysWithinScope(g, ud, buffer, scope, maxElements) ? maxElements : -1;
    kept_.remember(slot, key_, *kept);
  }
  maxElementsPerInstance = std::max<int64_t>(*kept, 0);
  return *kept >= 0;
}

std::optional<int64_t> KeptAnswers::recall(uint64_t slot, const std::vector<int64_t>& key) const {
  auto it = kept_.find(slot);
  if (it == kept_.end() || it->second.first != key) return std::nullopt;
  return it->second.second;
}

void KeptAnswers::remember(uint64_t slot, const std::vector<int64_t>& key, int64_t answer) {
  auto& kept = kept_[slot];
  kept.first = key;
  kept.second = answer;
}

namespace {

// Every live buffer's footprint per instance at `level` (its per-instance elements when it stays
// within the level's scope, else all of it), indexed by buffer.
std::vector<int64_t> bytesAtLevel(const Graph& g, const UseDef& ud, const LevelDecl& l, ScopeFootprints* footprints) {
  std::vector<int64_t> bytes(g.buffers().size(), 0);
  for (uint32_t b = 0; b < g.buffers().size(); ++b) {
    if (g.buffers()[b].erased || g.buffers()[b].level != l.name) continue;
    int64_t maxElems = 0;
    bool stays = footprints ? footprints->staysWithinScope(g, ud, BufferId(b), l.scope, maxElems)
                            : staysWithinScope(g, ud, BufferId(b), l.scope, maxElems);
    bytes[b] = stays ? maxElems * 4 : g.buffers()[b].numel() * 4;
  }
  return bytes;
}

}  // namespace

// Per level: every buffer's footprint and the live bytes at each schedule position (a buffer counts
// from its first to its last position, as in peakLiveBytes).
struct LevelProfile {
  std::vector<int64_t> bytes;
  std::vector<int64_t> live;
};

struct FitProfile::Impl {
  Impl(const Graph& graph, const UseDef& useDef, ScopeFootprints* f) : g(graph), ud(useDef), footprints(f) {}
  const Graph& g;
  const UseDef& ud;
  ScopeFootprints* footprints;
  bool scheduled = false;
  bool acyclic = false;
  size_t positions = 0;
  std::vector<std::pair<int, int>> intervals;
  std::map<std::string, LevelProfile> levels;  // computed on first use

  bool schedule() {
    if (!scheduled) {
      scheduled = true;
      auto order = topologicalOrder(g);
      acyclic = order.has_value();
      if (acyclic) {
        positions = order->size();
        intervals = bufferLiveIntervals(g, *order);
      }
    }
    return acyclic;
  }
  const LevelProfile& profile(const LevelDecl& l) {
    auto it = levels.find(l.name);
    if (it != levels.end()) return it->second;
    LevelProfile p{bytesAtLevel(g, ud, l, footprints), std::vector<int64_t>(positions + 1, 0)};
    for (uint32_t b = 0; b < g.buffers().size(); ++b) {
      if (g.buffers()[b].erased || g.buffers()[b].level != l.name || intervals[b].first < 0) continue;
      p.live[static_cast<size_t>(intervals[b].first)] += p.bytes[b];
      p.live[static_cast<size_t>(intervals[b].second) + 1] -= p.bytes[b];
    }
    for (size_t k = 1; k < p.live.size(); ++k) p.live[k] += p.live[k - 1];
    return levels.emplace(l.name, std::move(p)).first->second;
  }

  // peakLiveBytes(...).bytes with `candidate` counted at `candidateBytes`, from the profile: inside
  // the candidate's interval its own footprint (if it is at the level) is replaced.
  int64_t peakWith(const LevelDecl& l, BufferId candidate, int64_t candidateBytes) {
    const LevelProfile& p = profile(l);
    const Buffer& c = g.buffer(candidate);
    auto [first, last] = intervals[candidate.value];
    bool live = !c.erased && first >= 0;
    int64_t delta = live ? candidateBytes - (c.level == l.name ? p.bytes[candidate.value] : 0) : 0;
    int64_t peak = 0;
    for (size_t k = 0; k < positions; ++k) {
      bool inside = live && static_cast<int>(k) >= first && static_cast<int>(k) <= last;
      peak = std::max(peak, p.live[k] + (inside ? delta : 0));
    }
    return peak;
  }
};

FitProfile::FitProfile(const Graph& g, const UseDef& ud, ScopeFootprints* footprints) : impl_(std::make_unique<Impl>(g, ud, footprints)) {}

FitProfile::~FitProfile() = default;

bool FitProfile::fits(const std::string& level, BufferId candidate, int64_t candidateBytes) {
  const LevelDecl* l = impl_->g.level(level);
  if (!l || l->capacityBytes <= 0) return true;
  return impl_->schedule() && impl_->peakWith(*l, candidate, candidateBytes) <= l->capacityBytes;
}

bool fitsAtLevel(const Graph& g, const UseDef& ud, const std::string& level, BufferId candidate, int64_t candidateBytes) {
  const LevelDecl* l = g.level(level);
  if (!l || l->capacityBytes <= 0) return true;
  auto order = topologicalOrder(g);
  if (!order) return false;
  std::vector<int64_t> bytes = bytesAtLevel(g, ud, *l, nullptr);
  bytes[candidate.value] = candidateBytes;
  return peakLiveBytes(g, bufferLiveIntervals(g, *order), level, bytes, candidate).bytes <= l->capacityBytes;
}

bool fitsCapacities(const Graph& g, std::string* why) {
  if (!topologicalOrder(g)) return false;
  UseDef ud = computeUseDef(g);
  std::vector<int64_t> bytes(g.buffers().size(), 0);
  for (const LevelDecl& l : g.levels) {
    if (l.scope == Scope::Device || l.capacityBytes <= 0) continue;
    auto at = bytesAtLevel(g, ud, l, nullptr);
    for (size_t b = 0; b < bytes.size(); ++b) bytes[b] += at[b];
  }
  // The checker's own words (capacityFindings): the level, the bytes per instance against its
  // capacity, and the node and buffers where the peak is.
  auto findings = capacityFindings(g, bytes);
  if (findings.empty()) return true;
  if (why) *why = "capacity overflow: " + findings.front().message;
  return false;
}

bool readThroughMemory(const UseDef& ud, BufferId b) {
  if (b.value >= ud.slicesOfBuffer.size()) return false;
  for (SliceId s : ud.slicesOfBuffer[b.value])
    if (!ud.memoryWriters[s.value].empty()) return true;
  return false;
}

bool domainWithin(const UnitDomain& inner, const UnitDomain& outer) {
  return inner.begin >= outer.begin && inner.end <= outer.end;
}

}  // namespace gir
