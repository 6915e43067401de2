// Coalescing consecutive units (UnitCoalescing.h): offsets substituted at u = u'*factor, last dims
// widened, private instances relaid out.
#include "codegen/schedule/UnitCoalescing.h"

#include <algorithm>
#include <map>
#include <optional>

#include "codegen/schedule/LoopNest.h"
#include "core/gir/Printer.h"

namespace gir::codegen {

namespace {

Scope scopeOf(const Graph& g, BufferId b) {
  const LevelDecl* l = g.levelOf(b);
  return l ? l->scope : Scope::Device;
}

std::string sliceName(const Graph& g, SliceId s) { return "%s" + std::to_string(s.value) + " (on %" + g.buffer(g.slice(s).buffer).name + ")"; }

// The offset at u = u'*factor + j as offset'(u') + j*step: `step` is what one unit further adds
// inside a coalesced group. Div and Mod terms need a divisor that factor divides, so that a group
// never straddles one of their steps.
struct SubstitutedOffset {
  AffineIndex offset;
  int64_t step = 0;
};

Expected<SubstitutedOffset> substitute(const AffineIndex& a, int64_t factor) {
  SubstitutedOffset r;
  r.offset = AffineIndex(a.constant());
  for (const UnitTerm& t : a.terms()) {
    if (t.kind == UnitTermKind::Identity) {
      r.offset.addTerm(UnitTermKind::Identity, 1, t.coeff * factor);
      r.step += t.coeff;
      continue;
    }
    if (t.divisor % factor != 0)
      return makeError("its offset " + a.str() + " steps every " + std::to_string(t.divisor) + " units, which " + std::to_string(factor) +
                       " does not divide");
    int64_t k = t.divisor / factor;
    if (t.kind == UnitTermKind::Div) {
      r.offset.addTerm(k == 1 ? UnitTermKind::Identity : UnitTermKind::Div, k, t.coeff);
    } else {
      if (k > 1) r.offset.addTerm(UnitTermKind::Mod, k, t.coeff * factor);
      r.step += t.coeff;
    }
  }
  return r;
}

// A private instance per unit: every slice of the buffer has this slice's shape, strides and offset,
// dense, one unit further along by at least its size. Widened, it stays dense.
bool wholePrivateInstance(const Graph& g, const std::vector<SliceId>& sameBuffer, SliceId sid, const SubstitutedOffset& sub) {
  const MemorySlice& s = g.slice(sid);
  if (s.strides != denseStrides(s.shape) || sub.step < s.numel() || s.offset.terms().size() != 1 ||
      s.offset.terms()[0].kind != UnitTermKind::Identity)
    return false;
  return std::all_of(sameBuffer.begin(), sameBuffer.end(), [&](SliceId o) { return g.slice(o).samePattern(s); });
}

Expected<MemorySlice> widen(const Graph& g, const std::vector<SliceId>& sameBuffer, SliceId sid, int64_t factor) {
  const MemorySlice& s = g.slice(sid);
  if (s.shape.empty()) return makeError("slice " + sliceName(g, sid) + " has no dims to widen");
  auto sub = substitute(s.offset, factor);
  if (!sub) return makeError("slice " + sliceName(g, sid) + ": " + sub.error().message);
  MemorySlice w = s;
  w.offset = sub->offset;
  w.shape.back() *= factor;
  if (s.strides.back() == 1 && sub->step == s.shape.back()) return w;  // the next unit's run continues this one
  if (scopeOf(g, s.buffer) == Scope::Unit && wholePrivateInstance(g, sameBuffer, sid, *sub)) {
    w.strides = denseStrides(w.shape);
    return w;
  }
  return makeError("slice " + sliceName(g, sid) + " of the next unit does not continue this one's last dim (offset " + s.offset.str() +
                   ", last dim " + std::to_string(s.shape.back()) + " with stride " + std::to_string(s.strides.back()) + ")");
}

// Whether the node keeps every operand's last dim apart from the other dims: then widening every
// slice's last dim widens the node.
Status keepsLastDim(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  auto last = [&](SliceId s) { return g.slice(s).shape.empty() ? -1 : g.slice(s).shape.back(); };
  auto fail = [&](const std::string& why) { return makeError("node " + std::to_string(id.value) + " (" + describeNode(g, id) + ") " + why); };
  switch (n.kind()) {
    case NodeKind::Sync: return success();
    case NodeKind::Move:
    case NodeKind::Elementwise:
      for (const auto* list : {&n.inputs, &n.outputs})
        for (SliceId s : *list)
          if (g.slice(s).shape != g.slice(n.outputs[0]).shape) return fail("has operands of different shapes");
      return success();
    case NodeKind::Reduce:
    case NodeKind::Broadcast: {
      // a reduce's axes index its input, a broadcast's its output
      bool reduce = n.kind() == NodeKind::Reduce;
      const auto& axes = reduce ? std::get<ReducePayload>(n.payload).axes : std::get<BroadcastPayload>(n.payload).axes;
      int lastAxis = static_cast<int>(g.slice(reduce ? n.inputs[0] : n.outputs[0]).shape.size()) - 1;
      if (std::find(axes.begin(), axes.end(), lastAxis) != axes.end()) return fail(reduce ? "reduces the last dim" : "broadcasts along the last dim");
      if (last(n.inputs[0]) != last(n.outputs[0])) return fail("moves the last dim");
      return success();
    }
  }
  return fail("is of an unknown kind");
}

bool blockScoped(const Graph& g, const std::vector<SliceId>& live) {
  for (const Node& n : g.nodes())
    if (!n.erased && n.isSync() && n.syncScope() == Scope::Block) return true;
  return std::any_of(live.begin(), live.end(), [&](SliceId s) { return scopeOf(g, g.slice(s).buffer) == Scope::Block; });
}

std::vector<SliceId> liveSlices(const Graph& g) {
  std::vector<bool> used(g.slices().size(), false);
  for (const Node& n : g.nodes())
    if (!n.erased)
      for (const auto* list : {&n.inputs, &n.outputs})
        for (SliceId s : *list) used[s.value] = true;
  std::vector<SliceId> out;
  for (uint32_t s = 0; s < used.size(); ++s)
    if (used[s]) out.push_back(SliceId(s));
  return out;
}

}  // namespace

Expected<Graph> coalesceUnits(const Graph& g, int64_t factor) {
  if (factor < 2) return makeError("a coalescing factor is at least 2, not " + std::to_string(factor));
  if (g.units % factor != 0) return makeError(std::to_string(factor) + " does not divide the " + std::to_string(g.units) + " units");
  std::vector<SliceId> live = liveSlices(g);
  // A block's units share its scratch and its syncs: a group must not straddle two blocks.
  if (blockScoped(g, live) && g.unitsPerBlock % factor != 0)
    return makeError("the graph has block-scope buffers or syncs and " + std::to_string(factor) + " does not divide its " +
                     std::to_string(g.unitsPerBlock) + " units per block");
  Graph out = g;
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.node(NodeId(i));
    if (n.erased) continue;
    if (auto st = keepsLastDim(g, NodeId(i)); !st) return st.takeError();
    if (!n.domain) continue;
    if (n.domain->begin % factor != 0 || n.domain->end % factor != 0)
      return makeError("node " + std::to_string(i) + " runs on units [" + std::to_string(n.domain->begin) + ", " + std::to_string(n.domain->end) +
                       "), which groups of " + std::to_string(factor) + " straddle");
    out.node(NodeId(i)).domain = UnitDomain{n.domain->begin / factor, n.domain->end / factor};
  }
  std::map<uint32_t, std::vector<SliceId>> byBuffer;
  for (SliceId s : live) byBuffer[g.slice(s).buffer.value].push_back(s);
  for (SliceId s : live) {
    auto w = widen(g, byBuffer[g.slice(s).buffer.value], s, factor);
    if (!w) return w.takeError();
    out.slice(s) = std::move(*w);
  }
  out.units = g.units / factor;
  out.unitsPerBlock = std::max<int64_t>(1, g.unitsPerBlock / factor);
  return out;
}

std::optional<Graph> coalesceStridedRuns(const Graph& g, int64_t runBytes, int64_t minUnits) {
  int64_t shortest = 0;
  for (SliceId s : liveSlices(g)) {
    const MemorySlice& sl = g.slice(s);
    if (scopeOf(g, sl.buffer) != Scope::Device || sl.contiguousWidth() == sl.numel()) continue;
    int64_t run = sl.contiguousWidth() * 4;
    if (run < runBytes && (shortest == 0 || run < shortest)) shortest = run;
  }
  if (shortest == 0) return std::nullopt;
  int64_t factor = 2;
  while (factor < 64 && shortest * factor < runBytes) factor *= 2;
  for (; factor >= 2; factor /= 2) {
    if (g.units / factor < minUnits) continue;
    if (auto c = coalesceUnits(g, factor)) return std::move(*c);
  }
  return std::nullopt;
}

int64_t stridedRunFactor(const Graph& g, int64_t runBytes, int64_t minUnits) {
  auto c = coalesceStridedRuns(g, runBytes, minUnits);
  return c ? g.units / c->units : 1;
}

}  // namespace gir::codegen
