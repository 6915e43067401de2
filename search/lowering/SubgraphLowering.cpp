// Boxes for every op (follow needs its producer's boxes), then per-op programs, then the joins.
#include "search/lowering/SubgraphLowering.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "search/lowering/IterationSpace.h"
#include "search/lowering/LeadBoxes.h"
#include "search/lowering/OpEmitter.h"
#include "search/lowering/SplitReduction.h"
#include "search/lowering/TiledTranspose.h"
#include "search/lowering/UnitBoxes.h"
#include "search/lowering/UnitProgram.h"

namespace gir::search {

using compute::TensorId;

namespace {

// Bounds on the natural splits offered (besides the register budget of a box): no cap on the unit
// count below a GPU grid's 2^31 blocks (the box comes from the register budget and the unit count
// follows, docs/scale.md), and boxes of at least 16 elements on large spaces (a million one-element
// units teach nothing and cost a launch's worth of index arithmetic each).
// Spaces that have a split within 1,024 units (a GPU's resident blocks) are offered only those, as
// before: the search stays as small as it was on the sizes the goldens hold.
constexpr int64_t kMaxUnits = (int64_t{1} << 31) - 1;
constexpr int64_t kPreferredUnits = 1024;
constexpr int64_t kMinBoxElements = 16;

std::vector<int64_t> divisorsOf(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t k = 2; k * k <= n; ++k)
    if (n % k == 0) {
      d.push_back(k);
      if (k != n / k) d.push_back(n / k);
    }
  return d;
}

int producerIndex(const compute::Graph& g, const compute::Subgraph& sub, size_t before, TensorId t) {
  for (size_t j = 0; j < before; ++j)
    for (TensorId o : g.op(sub.ops[j]).outputs)
      if (o == t) return static_cast<int>(j);
  return -1;
}

class SubgraphLowerer {
 public:
  SubgraphLowerer(const TemplateState& st, const HardwareDesc& hw, const LoweringOptions& o)
      : g_(st.graph()), sub_(st.subgraph()), st_(st), hw_(hw), o_(o) {}

  Expected<LoweredSubgraph> run() {
    if (!st_.complete()) return makeError("one template per op is needed");
    if (auto st = header(); !st) return st.takeError();
    SliceCache cache;
    for (size_t i = 0; i < sub_.ops.size(); ++i) {
      EmitContext ctx{out_.gir, regLevel_, [this](TensorId t) { return dramBuffer(t); }, names_, [this](TensorId t) { return live(t); },
                      [this](const std::string& name, int64_t n) { return scratchBuffer(name, n); }};
      for (const auto& phase : emitOp(ctx, g_.op(sub_.ops[i]), st_.space(i), st_.boxes(i))) {
        Materialized m = materialize(out_.gir, phase, divisorsOf(st_.boxes(i).units()), cache);
        for (auto [b, s] : m.reads)
          if (joined_.count(b.value)) loads_[b.value].push_back(s);
        for (auto [b, s] : m.writes)
          if (joined_.count(b.value)) stores_[b.value].push_back(s);
      }
    }
    join();
    return std::move(out_);
  }

 private:
  Status header() {
    Graph& gir = out_.gir;
    gir.name = o_.graphName.empty() ? (g_.name.empty() ? "subgraph" : g_.name) : o_.graphName;
    for (char& c : gir.name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    gir.target = hw_.name;
    gir.units = 1;
    for (size_t i = 0; i < st_.size(); ++i) gir.units = std::max(gir.units, st_.boxes(i).units());
    gir.unitsPerBlock = std::max<int64_t>(1, std::min(o_.unitsPerBlock, gir.units));
    for (const auto& l : hw_.levels) gir.levels.push_back(LevelDecl{l.name, l.scope, l.scope == Scope::Device ? 0 : l.capacityBytes});
    const auto* reg = hw_.levelForScope(Scope::Unit);
    if (!reg) return makeError("target '" + hw_.name + "' has no unit-scope level for registers");
    regLevel_ = reg->name;
    dramLevel_ = hw_.dramLevel()->name;
    return success();
  }

  bool live(TensorId t) const {
    if (std::count(sub_.outputs.begin(), sub_.outputs.end(), t)) return true;
    for (auto id : sub_.ops)
      if (std::count(g_.op(id).inputs.begin(), g_.op(id).inputs.end(), t)) return true;
    return false;
  }

  BufferId dramBuffer(TensorId t) {
    auto it = buffers_.find(t);
    if (it != buffers_.end()) return it->second;
    const auto& tensor = g_.tensor(t);
    bool isInput = std::count(sub_.inputs.begin(), sub_.inputs.end(), t) > 0;
    bool isOutput = std::count(sub_.outputs.begin(), sub_.outputs.end(), t) > 0;
    BufferRole role = isInput ? BufferRole::Input : isOutput ? BufferRole::Output : BufferRole::Temp;
    std::string name = uniqueBufferName(o_.bufferName ? o_.bufferName(t) : tensor.name, names_);
    BufferId b = out_.gir.addBuffer(Buffer{name, dramLevel_, {std::max<int64_t>(1, compute::numElements(tensor.dims))}, role});
    if (isInput) out_.inputBuffers[name] = t;
    if (isOutput) out_.outputBuffers[name] = t;
    buffers_[t] = b;
    joined_.insert(b.value);
    return b;
  }

  BufferId scratchBuffer(const std::string& base, int64_t elements) {
    BufferId b = out_.gir.addBuffer(Buffer{uniqueBufferName(base, names_), dramLevel_, {std::max<int64_t>(1, elements)}, BufferRole::Temp});
    joined_.insert(b.value);
    return b;
  }

  // Every tensor written inside and read again: one device sync from all its stores to all its loads.
  void join() {
    for (auto& [b, loads] : loads_) {
      auto it = stores_.find(b);
      if (it == stores_.end()) continue;
      std::sort(loads.begin(), loads.end());
      loads.erase(std::unique(loads.begin(), loads.end()), loads.end());
      out_.gir.addNode(Node{SyncPayload{Scope::Device}, it->second, loads, std::nullopt});
    }
  }

  const compute::Graph& g_;
  const compute::Subgraph& sub_;
  const TemplateState& st_;
  const HardwareDesc& hw_;
  const LoweringOptions& o_;
  std::string regLevel_, dramLevel_;
  LoweredSubgraph out_;
  std::set<std::string> names_;
  std::map<TensorId, BufferId> buffers_;
  std::set<uint32_t> joined_;  // DRAM buffers whose stores and loads a device sync joins
  std::map<uint32_t, std::vector<SliceId>> loads_, stores_;
};

}  // namespace

namespace {

// The widest tile that fits, then about a half and a quarter of it (a box that fits the budget may
// still overflow its level once the op's other live buffers count: a convolution's window), then 1.
std::vector<int64_t> widestTiles(int64_t last, int64_t widest) {
  std::vector<int64_t> out{widest};
  for (int64_t want : {widest / 2, widest / 4, int64_t{1}}) {
    int64_t t = std::max<int64_t>(want, 1);
    while (t > 1 && last % t != 0) --t;
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  return out;
}

// How natural splits are offered: the unit limit, a contraction's K in chunks, and the widest
// boxes only (a reduced instance, docs/scale.md).
struct NaturalMode {
  int64_t unitLimit;
  bool chunks;
  bool widest;
};

// Natural splits over the prefixes of `order` at least `minDims` long, widest first; a contraction's
// box may take its K in chunks when `chunks` is set, else its whole K must fit the budget.
void addNaturalOptions(const IterationSpace& s, const std::vector<int>& order, size_t minDims, int64_t maxBoxElements, NaturalMode mode,
                       std::set<std::pair<int64_t, std::vector<int64_t>>>& seen, std::vector<OpTemplate>& out) {
  int64_t budget = boxBudgetFor(s, maxBoxElements), unitLimit = mode.unitLimit;
  auto fits = [&](const std::vector<int64_t>& ext) {
    int64_t whole = 1;
    for (auto e : ext) whole *= e;
    return (mode.chunks || s.compute != ComputeKind::Contract ? liveBoxElements(s, ext, budget) : whole) <= budget;
  };
  // On a reduced instance the fewest unit dims come first: a dim shrunk to one tile gives the same box
  // as one more unit dim there, but at full size it is held whole, so the first of two splits that
  // tie in cost is the one with the fewest units at full size (channel shuffle: a plane per unit,
  // not a row; docs/scale.md). The split's unit dims are part of what it means there.
  std::vector<size_t> prefixes;
  for (size_t k = order.size(); k >= std::max<size_t>(minDims, 1); --k) prefixes.push_back(k);
  if (mode.widest) std::reverse(prefixes.begin(), prefixes.end());
  for (size_t k : prefixes) {
    std::vector<int> outer(order.begin(), order.begin() + static_cast<long>(k));
    // Tiles of the last unit dim: none, two widths for tiny boxes, and one more: under the preferred
    // limit the smallest that keeps the unit count within it, without a limit the widest whose box
    // fits the register budget (the fewest units: the count follows from the box).
    int64_t last = s.dims[outer.back()], above = 1, bounding = 0;
    for (size_t j = 0; j + 1 < outer.size(); ++j) above *= s.dims[outer[j]];
    if (unitLimit <= kPreferredUnits) {
      for (int64_t t = 1; t <= last && !bounding; ++t)
        if (last % t == 0 && above * (last / t) <= unitLimit) bounding = t;
    } else if (auto one = naturalBoxes(s, outer, 1)) {
      std::vector<int64_t> ext = one->ext;
      for (int64_t t = last; t >= 1 && !bounding; --t) {
        ext[outer.back()] = t;
        if (last % t == 0 && fits(ext)) bounding = t;
      }
    }
    std::vector<int64_t> tiles{1, 4, 16, bounding};
    if (mode.widest) tiles = widestTiles(last, bounding);
    for (int64_t tile : tiles) {
      auto b = naturalBoxes(s, outer, tile);
      if (!b || !fits(b->ext) || b->units() > unitLimit) continue;
      if (tile < 1 || (tile > 1 && tile != bounding && b->boxNumel() > 256)) continue;  // width tiles only for tiny boxes
      if (b->boxNumel() < kMinBoxElements && s.numel() >= kMinBoxElements * 64) continue;
      std::vector<int64_t> key = b->ext;
      if (mode.widest) key.insert(key.end(), outer.begin(), outer.end());
      if (!seen.insert({b->units(), key}).second) continue;
      out.push_back(OpTemplate{OpTemplate::Kind::Natural, outer, tile, -1});
    }
  }
}

// Every natural split the op offers (widest prefix first).
std::vector<OpTemplate> naturalOptions(const IterationSpace& s, int64_t maxBoxElements, bool widest = false) {
  std::vector<OpTemplate> out;
  std::vector<int> order, bands;
  for (size_t d = 0; d < s.dims.size(); ++d) {
    if (s.reduced[d] || s.whole[d]) continue;
    (s.band[d] ? bands : order).push_back(static_cast<int>(d));
  }
  // A contraction's K is taken in chunks only where no whole-K split keeps within the preferred
  // unit count, and then whole-K splits with more units stay on offer beside them: chunks round
  // each partial sum to float, which at K = 768 can cost the reference check on its own.
  std::set<std::pair<int64_t, std::vector<int64_t>>> seen;
  for (auto [unitLimit, chunks] : {std::pair{kPreferredUnits, false}, {kPreferredUnits, true}, {kMaxUnits, false}, {kMaxUnits, true}}) {
    if ((chunks && s.compute != ComputeKind::Contract) || (widest && unitLimit == kPreferredUnits)) continue;
    NaturalMode mode{unitLimit, chunks, widest};
    addNaturalOptions(s, order, 1, maxBoxElements, mode, seen, out);
    if (!bands.empty()) {
      std::vector<int> banded = bands;
      banded.insert(banded.end(), order.begin(), order.end());
      addNaturalOptions(s, banded, bands.size(), maxBoxElements, mode, seen, out);
    }
    if (!out.empty() && !(chunks && unitLimit == kPreferredUnits)) break;
  }
  return out;
}

// A transpose read along its source: units split the source's innermost dim in tiles of 16 or 32
// (a DRAM line or transaction per row) and hold the destination's innermost dim whole, so each
// unit reads whole rows of the source (and a reduction over the destination's innermost dim stays
// in the unit). None for other ops.
std::vector<OpTemplate> sourceOrderSplits(const IterationSpace& s, int64_t maxBoxElements) {
  std::vector<OpTemplate> out;
  auto inner = transposedInnerDims(s);
  if (!inner) return out;
  std::vector<int> outer;
  for (int d = 0; d < static_cast<int>(s.dims.size()); ++d)
    if (d != inner->first && d != inner->second) outer.push_back(d);
  outer.push_back(inner->first);
  for (int64_t unitLimit : {kPreferredUnits, kMaxUnits}) {
    for (int64_t tile : {16, 32}) {
      auto b = naturalBoxes(s, outer, tile);
      if (b && b->boxNumel() <= boxBudgetFor(s, maxBoxElements) && b->units() <= unitLimit) out.push_back(OpTemplate{OpTemplate::Kind::Natural, outer, tile});
    }
    if (!out.empty()) break;
  }
  return out;
}

// Leads per op, at most this many: each multiplies the search, and the consumer's splits with the
// fewest units (the ones the search tries first for it) are the promising ones.
constexpr size_t kMaxLeads = 2;

// Lead options: offered when the op's chain of single readers reaches an op that reads it through
// a piece (a concat), which therefore cannot follow it, or a transpose, whose efficient splits
// (read along the source) no producer split gives; one per natural split of that consumer under
// which the whole chain gets boxes (fewest consumer units first; for a transpose its source-order
// splits only: a producer leading into a strided split gains nothing).
void addLeadOptions(const compute::Graph& g, const compute::Subgraph& sub, size_t i, int64_t maxBoxElements, std::vector<OpTemplate>& out) {
  std::map<size_t, IterationSpace> chain;
  auto spaceOf = [&](size_t k) -> const IterationSpace* {
    auto it = chain.find(k);
    if (it != chain.end()) return &it->second;
    auto s = iterationSpace(g, g.op(sub.ops[k]));
    return s ? &chain.emplace(k, std::move(*s)).first->second : nullptr;
  };
  auto target = leadTarget(g, sub, spaceOf, i);
  if (!target) return;
  std::vector<IterationSpace> spaces;
  for (size_t k = 0; k < sub.ops.size(); ++k) {
    const IterationSpace* s = spaceOf(k);
    if (!s) return;
    spaces.push_back(*s);
  }
  std::vector<std::pair<int64_t, OpTemplate>> leads;
  auto splits = sourceOrderSplits(spaces[*target], maxBoxElements);
  if (splits.empty()) splits = naturalOptions(spaces[*target], maxBoxElements);
  for (const OpTemplate& n : splits) {
    auto b = leadBoxes(g, sub, spaces, i, *target, n.outer, n.tile, maxBoxElements);
    if (!b) continue;
    OpTemplate t = n;
    t.kind = OpTemplate::Kind::Lead;
    t.consumer = static_cast<int>(*target);
    leads.emplace_back(b->units(), t);
  }
  std::stable_sort(leads.begin(), leads.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t k = 0; k < leads.size() && k < kMaxLeads; ++k) out.push_back(leads[k].second);
}

// A natural split of a column reduction whose box is one column wide: every element a unit reads lies
// on its own DRAM line and its own page. Where the column strip is on offer such a split is not: with
// cpu-host's 48 KiB `local` a whole column of 4096x4096 fits a unit, and the baselines' one-kernel
// lowering took it (modelled 54.2 ms, measured 63 ms, against about 3 ms for the strips; the GIR
// planner then kept it for its 3 % fewer bytes).
bool oneColumnWide(const IterationSpace& s, const OpTemplate& t) {
  int inner = static_cast<int>(s.dims.size()) - 1;
  if (t.kind != OpTemplate::Kind::Natural || t.tileBefore > 1 || s.dims[inner] <= 1) return false;
  auto at = std::find(t.outer.begin(), t.outer.end(), inner);
  return at != t.outer.end() && (std::next(at) != t.outer.end() || t.tile == 1);
}

// Templates beyond the plain natural splits: a reduction cut over units (SplitReduction.h) when
// no unit can hold a whole one (`unitLocal` false: a cut costs a scratch round trip and a sync
// that a unit-local reduction does not need), and a column strip even when one can (a whole column
// is one element per DRAM line); a transpose read along its source; and a transpose
// staged through shared memory in strips of the lowering's default block.
void addLayoutAndCutOptions(const IterationSpace& s, int64_t maxBoxElements, bool unitLocal, std::vector<OpTemplate>& out) {
  int64_t budget = boxBudgetFor(s, maxBoxElements);
  std::vector<SplitShape> shapes;
  if (!unitLocal) shapes = splitReductionShapes(s, budget);
  else if (auto strip = columnStripShape(s, budget)) shapes.push_back(*strip);
  for (auto& shape : shapes)
    out.push_back(OpTemplate{OpTemplate::Kind::Natural, shape.outer, shape.tile, -1, -1, 0, shape.tileBefore});
  for (auto& t : sourceOrderSplits(s, maxBoxElements))
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  if (auto side = tileSide(s)) {
    OpTemplate t{OpTemplate::Kind::Tiled, {}, *side};
    t.parts = LoweringOptions{}.unitsPerBlock;
    if (auto b = tiledBoxes(s, t.tile, t.parts); b && b->units() <= kMaxUnits && b->boxNumel() <= budget) out.push_back(t);
  }
}

}  // namespace

std::vector<OpTemplate> templateOptions(const compute::Graph& g, const compute::Subgraph& sub, size_t i, int64_t maxBoxElements, bool widestBoxes) {
  auto s = iterationSpace(g, g.op(sub.ops[i]));
  if (!s) return {};
  std::vector<OpTemplate> out;
  std::set<TensorId> followed;
  for (size_t r = 0; r < s->reads.size(); ++r) {
    const auto& a = s->reads[r];
    if (!a.wholeSpace(s->dims) || producerIndex(g, sub, i, a.tensor) < 0 || !followed.insert(a.tensor).second) continue;
    OpTemplate t;
    t.kind = OpTemplate::Kind::Follow;
    t.read = static_cast<int>(r);
    out.push_back(t);
  }
  addLeadOptions(g, sub, i, maxBoxElements, out);
  auto naturals = naturalOptions(*s, maxBoxElements, widestBoxes);
  bool unitLocal = !naturals.empty();
  if (unitLocal && columnStripShape(*s, boxBudgetFor(*s, maxBoxElements)))
    std::erase_if(naturals, [&](const OpTemplate& t) { return oneColumnWide(*s, t); });
  for (auto& t : naturals) out.push_back(std::move(t));
  addLayoutAndCutOptions(*s, maxBoxElements, unitLocal, out);
  return out;
}

std::string noTemplateReason(const compute::Graph& g, const compute::Subgraph& sub, size_t i, int64_t maxBoxElements) {
  auto s = iterationSpace(g, g.op(sub.ops[i]));
  if (!s) return s.error().message;
  // A unit holds at least every reduced element but those of the first reduced dim, which a split
  // reduction cuts (SplitReduction.h), and every dim it must hold whole.
  int64_t smallest = 1;
  bool firstReducedSeen = false;
  std::string space;
  for (size_t d = 0; d < s->dims.size(); ++d) {
    bool cut = s->reduced[d] && !firstReducedSeen;
    firstReducedSeen = firstReducedSeen || s->reduced[d];
    if ((s->reduced[d] && !cut) || s->whole[d]) smallest *= s->dims[d];
    space += (d ? "x" : "") + std::to_string(s->dims[d]) + (s->reduced[d] ? "r" : "");
  }
  return "no split of its iteration space " + space + " (r: reduced) fits a unit's box in the register budget of " +
         std::to_string(boxBudgetFor(*s, maxBoxElements)) + " elements" +
         (smallest > 1 ? " (the smallest box holds " + std::to_string(smallest) + "; a split reduction cuts only the first reduced dim)" : "");
}

Expected<LoweredSubgraph> lowerSubgraph(const TemplateState& state, const HardwareDesc& hw, const LoweringOptions& options) {
  return SubgraphLowerer(state, hw, options).run();
}

Expected<LoweredSubgraph> lowerSubgraph(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                                        const std::vector<OpTemplate>& choice, const LoweringOptions& options) {
  auto state = TemplateState::make(g, sub, boxElementBudget(hw));
  if (!state) return state.takeError();
  if (choice.size() != sub.ops.size()) return makeError("one template per op is needed");
  for (const auto& t : choice)
    if (auto st = state->push(t); !st) return st.takeError();
  return lowerSubgraph(*state, hw, options);
}

}  // namespace gir::search
