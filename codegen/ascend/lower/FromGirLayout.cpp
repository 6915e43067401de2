// Stage 2 of the GIR -> .asck lowering (FromGir.h): which .asck buffer holds each GIR buffer, the tile size
// that keeps every unit's access inside one tile, the tile index as an affine function of each nest's loop
// variables, per-unit UB slots (double buffering), the staging tiles of compute nodes' GM operands, and the
// UB budget.
#include "codegen/ascend/lower/FromGir.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <set>

#include "codegen/schedule/Schedule.h"
#include "core/gir/Printer.h"
#include "core/gir/Verifier.h"

namespace gir::ascend {

const char* layoutKindName(LayoutKind k) {
  switch (k) {
    case LayoutKind::Global: return "gm";
    case LayoutKind::SharedUb: return "ub-shared";
    case LayoutKind::PrivateUb: return "ub-per-unit";
    case LayoutKind::Staging: return "ub-staging";
  }
  return "?";
}

namespace {

constexpr int64_t kElemBytes = 4;  // GIR buffers hold f32

struct Access {
  NodeId node;
  SliceId slice;
};

std::vector<std::vector<Access>> accessesPerBuffer(const Graph& g, const UnitPlan& plan) {
  std::vector<std::vector<Access>> out(g.buffers().size());
  for (NodeId id : plan.order) {
    const Node& n = g.node(id);
    for (const auto* list : {&n.inputs, &n.outputs})
      for (SliceId s : *list) out[g.slice(s).buffer.value].push_back({id, s});
  }
  return out;
}

bool isDevice(const Graph& g, BufferId b) {
  const LevelDecl* l = g.levelOf(b);
  return l && l->scope == Scope::Device;
}

// Unit- or lane-scoped and touched in one phase only: each unit's elements live and die in its iteration.
bool isPrivate(const Graph& g, const UnitPlan& plan, BufferId b, const std::vector<Access>& acc) {
  const LevelDecl* l = g.levelOf(b);
  if (!l || (l->scope != Scope::Unit && l->scope != Scope::Lane)) return false;
  for (const auto& a : acc)
    if (plan.phaseOf[a.node.value] != plan.phaseOf[acc[0].node.value]) return false;
  return true;
}

// The smallest divisor T of the element count (below the count itself) with every unit's access of every node
// inside one tile [tT, (t+1)T); 0 when only the whole buffer works.
int64_t chooseTile(const Graph& g, BufferId b, const std::vector<Access>& acc) {
  int64_t numel = g.buffer(b).numel(), span = 1;
  for (const auto& a : acc) {
    UnitDomain d = g.domainOf(g.node(a.node));
    for (int64_t u = d.begin; u < d.end; ++u) {
      auto [lo, hi] = sliceExtent(g.slice(a.slice), u);
      span = std::max(span, hi - lo + 1);
    }
  }
  std::vector<int64_t> cands;
  for (int64_t i = 1; i * i <= numel; ++i)
    if (numel % i == 0) cands.insert(cands.end(), {i, numel / i});
  std::sort(cands.begin(), cands.end());
  for (int64_t t : cands) {
    if (t < span || t >= numel) continue;
    bool fits = true;
    for (size_t k = 0; fits && k < acc.size(); ++k) {
      UnitDomain d = g.domainOf(g.node(acc[k].node));
      for (int64_t u = d.begin; fits && u < d.end; ++u) {
        auto [lo, hi] = sliceExtent(g.slice(acc[k].slice), u);
        fits = lo >= 0 && lo / t == hi / t;
      }
    }
    if (fits) return t;
  }
  return 0;
}

// f as sum(coef * var) + constant over the nest's loops, checked on every iteration; nullopt when not affine.
template <typename F>
std::optional<AffineIndex> fitAffine(const UnitNest& nest, F f) {
  AffineIndex idx;
  idx.constant = f(nest.base);
  std::vector<int64_t> coef(nest.loops.size());
  for (size_t k = 0; k < nest.loops.size(); ++k) {
    coef[k] = f(nest.base + nest.loops[k].stride) - idx.constant;
    if (coef[k] != 0) idx.terms.push_back({coef[k], nest.loops[k].var});
  }
  std::vector<int64_t> v(nest.loops.size(), 0);
  while (true) {
    int64_t want = idx.constant;
    for (size_t k = 0; k < v.size(); ++k) want += coef[k] * v[k];
    if (f(nest.unitAt(v)) != want) return std::nullopt;
    size_t k = v.size();
    while (k > 0 && ++v[k - 1] == nest.loops[k - 1].trip) v[--k] = 0;
    if (k == 0) break;
  }
  return idx;
}

std::string sanitize(const std::string& name) {
  std::string s;
  for (char c : name) s += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return s.empty() ? "b" : s;
}

class LayoutBuilder {
 public:
  LayoutBuilder(const Graph& g, const UnitPlan& plan, bool dbl, const std::set<uint32_t>& spilled = {})
      : g_(g), plan_(plan), dbl_(dbl), spilled_(spilled), acc_(accessesPerBuffer(g, plan)) {}

  Expected<Layout> run();

 private:
  Status addGirBuffer(BufferId b);
  void addPrivate(BufferId b, BufferLayout& bl);
  void addStaging(NodeId id, int operand, SliceId s);
  void add(BufferLayout bl);
  int64_t slotsFor(const std::set<uint32_t>& nodes) const;
  std::string uniqueName(const std::string& want);
  bool inGm(BufferId b) const { return isDevice(g_, b) || spilled_.count(b.value); }
  bool inGm(SliceId s) const { return inGm(g_.slice(s).buffer); }

  const Graph& g_;
  const UnitPlan& plan_;
  bool dbl_;
  const std::set<uint32_t> spilled_;
  std::vector<std::vector<Access>> acc_;
  std::set<std::string> names_;
  Layout out_;
};

std::string LayoutBuilder::uniqueName(const std::string& want) {
  std::string n = sanitize(want);
  for (int k = 2; names_.count(n); ++k) n = sanitize(want) + "_" + std::to_string(k);
  names_.insert(n);
  return n;
}

// Two slots when double buffering and some nest running these nodes has two or more iterations.
int64_t LayoutBuilder::slotsFor(const std::set<uint32_t>& nodes) const {
  if (!dbl_) return 1;
  for (const auto& nest : plan_.nests)
    for (NodeId id : nest.nodes)
      if (nodes.count(id.value) && nest.iterations() >= 2) return 2;
  return 1;
}

void LayoutBuilder::addPrivate(BufferId b, BufferLayout& bl) {
  bl.kind = LayoutKind::PrivateUb;
  // Each unit's tile holds its instance, as the schedule lays per-unit instances out.
  codegen::InstanceFootprint f = codegen::instanceFootprint(g_, b, true);
  bl.unitBase.assign(static_cast<size_t>(g_.units), 0);
  for (size_t u = 0; u < f.first.size(); ++u)
    if (f.touched(u)) bl.unitBase[u] = f.first[u];
  bl.tileElems = f.largest();
  std::set<uint32_t> nodes;
  for (const auto& a : acc_[b.value]) nodes.insert(a.node.value);
  bl.slots = slotsFor(nodes);
}

Status LayoutBuilder::addGirBuffer(BufferId b) {
  const gir::Buffer& buf = g_.buffer(b);
  if (!g_.levelOf(b))
    return makeError("buffer '%" + buf.name + "' is at level '" + buf.level + "', which the graph does not declare");
  BufferLayout bl;
  bl.gir = b;
  bl.decl.name = uniqueName(buf.name);
  bl.decl.mem = inGm(b) ? Mem::GM : Mem::UB;
  bl.spilled = spilled_.count(b.value) > 0;
  if (bl.decl.mem == Mem::UB && isPrivate(g_, plan_, b, acc_[b.value])) {
    addPrivate(b, bl);
    bl.decl.bytes = bl.tileElems * bl.slots * kElemBytes;
    bl.decl.tile = bl.slots > 1 ? bl.tileElems * kElemBytes : 0;
    if (bl.slots == 1) bl.tileElems = 0;
  } else {
    bl.kind = bl.decl.mem == Mem::GM ? LayoutKind::Global : LayoutKind::SharedUb;
    bl.tileElems = chooseTile(g_, b, acc_[b.value]);
    bl.decl.bytes = buf.numel() * kElemBytes;
  }
  out_.ofGir[b.value] = static_cast<int>(out_.buffers.size());
  add(std::move(bl));
  return success();
}

void LayoutBuilder::addStaging(NodeId id, int operand, SliceId s) {
  BufferLayout bl;
  bl.kind = LayoutKind::Staging;
  bl.node = id;
  bl.operand = operand;
  bl.tileElems = g_.slice(s).numel();
  bl.slots = slotsFor({id.value});
  std::string what = operand < 0 ? "out" : "in" + std::to_string(operand);
  bl.decl.name = uniqueName("stage_n" + std::to_string(id.value) + "_" + what);
  bl.decl.mem = Mem::UB;
  bl.decl.bytes = bl.tileElems * bl.slots * kElemBytes;
  bl.decl.tile = bl.slots > 1 ? bl.tileElems * kElemBytes : 0;
  if (bl.slots == 1) bl.tileElems = 0;
  out_.staging[{id.value, operand}] = static_cast<int>(out_.buffers.size());
  add(std::move(bl));
}

// A member with a .asck buffer of its own.
void LayoutBuilder::add(BufferLayout bl) {
  bl.asck = static_cast<int>(out_.decls.size());
  out_.decls.push_back(bl.decl);
  out_.buffers.push_back(std::move(bl));
}

Expected<Layout> LayoutBuilder::run() {
  out_.doubleBuffered = dbl_;
  for (uint32_t b = 0; b < g_.buffers().size(); ++b)
    if (!g_.buffers()[b].erased && !acc_[b].empty())
      if (auto st = addGirBuffer(BufferId(b)); !st) return st.takeError();
  for (NodeId id : plan_.order) {
    const Node& n = g_.node(id);
    if (n.outputs.size() != 1)
      return makeError("a node with " + std::to_string(n.outputs.size()) + " outputs has no .asck instruction form",
                       SourceLocation{"", 0, 0, describeNode(g_, id)});
    bool move = n.isMove();
    if (move && !(inGm(n.inputs[0]) && inGm(n.outputs[0]))) continue;  // one MTE2, MTE3 or V copy
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (inGm(n.inputs[k])) addStaging(id, static_cast<int>(k), n.inputs[k]);
    if (!move && inGm(n.outputs[0])) addStaging(id, -1, n.outputs[0]);
  }
  for (const auto& d : out_.decls)
    if (d.mem == Mem::UB) out_.ubBytes += d.bytes;
  return std::move(out_);
}

}  // namespace

std::vector<std::vector<int64_t>> tileDivisors(const Graph& g, const UnitPlan& plan) {
  auto acc = accessesPerBuffer(g, plan);
  std::vector<std::set<int64_t>> out(static_cast<size_t>(plan.phases));
  for (uint32_t b = 0; b < g.buffers().size(); ++b) {
    if (acc[b].empty() || g.buffers()[b].erased || !g.levelOf(BufferId(b))) continue;
    if (!isDevice(g, BufferId(b)) && isPrivate(g, plan, BufferId(b), acc[b])) continue;
    int64_t t = chooseTile(g, BufferId(b), acc[b]);
    if (t == 0) continue;
    for (const auto& a : acc[b])
      for (const auto& term : g.slice(a.slice).offset.terms()) {
        int64_t c = std::llabs(term.coeff);
        if (c == 0 || t % c != 0) continue;
        out[plan.phaseOf[a.node.value]].insert(term.kind == UnitTermKind::Div ? term.divisor * (t / c) : t / c);
      }
  }
  std::vector<std::vector<int64_t>> chains;
  for (const auto& s : out) chains.emplace_back(s.begin(), s.end());
  return chains;
}

// Tile indices of every GIR-buffer access in every nest; a buffer whose index is not affine in some nest
// falls back to whole-buffer references (sound, coarser: every access of it then conflicts).
static void fitTileIndices(const Graph& g, const UnitPlan& plan, Layout& lay) {
  auto& fitted = lay.tileIndex;
  for (size_t ni = 0; ni < plan.nests.size(); ++ni)
    for (NodeId id : plan.nests[ni].nodes) {
      const Node& n = g.node(id);
      for (const auto* list : {&n.inputs, &n.outputs})
        for (SliceId s : *list) {
          BufferLayout& bl = lay.buffers[lay.ofGir.at(g.slice(s).buffer.value)];
          if (bl.kind == LayoutKind::PrivateUb || bl.tileElems == 0) continue;
          int64_t t = bl.tileElems;
          auto idx = fitAffine(plan.nests[ni], [&](int64_t u) { return sliceExtent(g.slice(s), u).first / t; });
          if (idx) {
            fitted[{static_cast<int>(ni), s.value}] = *idx;
            continue;
          }
          lay.notes.push_back("buffer " + bl.decl.name + ": tile index of slice %s" + std::to_string(s.value) +
                              " is not affine in nest " + std::to_string(ni) + "; whole-buffer references");
          bl.tileElems = 0;
        }
    }
  for (auto& bl : lay.buffers)
    if (bl.kind == LayoutKind::Global || bl.kind == LayoutKind::SharedUb) lay.decls[bl.asck].tile = bl.decl.tile = bl.tileElems * kElemBytes;
}

// One try: the buffers, pooled or not; nullopt-like (an error) only for a GIR the layout cannot express.
static Expected<Layout> tryLayout(const Graph& g, const UnitPlan& plan, const FromGirOptions& opt, bool dbl, bool pool,
                                  const std::set<uint32_t>& spilled) {
  auto lay = LayoutBuilder(g, plan, dbl, spilled).run();
  if (lay && pool) poolByLifetime(g, plan, *lay, opt.ubCapacityBytes);
  return lay;
}

// Spilling: the largest buffer kept whole in UB (a unit's buffer that outlives a phase, or block-shared memory)
// goes to a GM scratch buffer of the same layout. Its writers then store it (MTE3, through a staging tile for
// a compute node) and its readers load it (MTE2) in the later phase: the flags the insertion puts between
// those stores and loads order them like any GM dependency. One buffer at a time, until UB holds the rest.
static Expected<Layout> spillUntilFits(const Graph& g, const UnitPlan& plan, const FromGirOptions& opt, Layout last) {
  std::set<uint32_t> spilled;
  std::vector<std::string> names;
  while (last.ubBytes > opt.ubCapacityBytes) {
    // Buffers kept whole first (they hold every unit's elements); then a unit's own buffers, the
    // largest first: pooling cannot always reach the per-unit peak the GIR plan was checked against
    // (pools are as large as their largest member), and a spilled one costs a GM round trip instead.
    const BufferLayout* biggest = nullptr;
    for (LayoutKind kind : {LayoutKind::SharedUb, LayoutKind::PrivateUb}) {
      for (const auto& bl : last.buffers)
        if (bl.kind == kind && (!biggest || bl.decl.bytes > biggest->decl.bytes)) biggest = &bl;
      if (biggest) break;
    }
    if (!biggest) {
      std::string largest;
      int64_t most = 0;
      for (const auto& d : last.decls)
        if (d.mem == Mem::UB && d.bytes > most) most = d.bytes, largest = d.name;
      return makeError("the lowered kernel needs " + std::to_string(last.ubBytes) + " bytes of UB, the core has " +
                       std::to_string(opt.ubCapacityBytes) + " (largest: " + largest + ", " + std::to_string(most) +
                       " bytes), with one slot, UB pooled by lifetime and every buffer that outlives a phase spilled to GM");
    }
    spilled.insert(biggest->gir.value);
    names.push_back("%" + g.buffer(biggest->gir).name + " (" + std::to_string(biggest->decl.bytes) + " bytes)");
    auto lay = tryLayout(g, plan, opt, false, true, spilled);
    if (!lay) return lay;
    last = std::move(*lay);
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  last.notes.push_back("spilled to GM (stored after their writers, loaded by their readers): " + list);
  return last;
}

// Tries, in order: every member its own UB (two slots where double buffering is on), pools by lifetime,
// then the same with one slot, then spilling. The first that fits UB is kept, with a note saying what it took.
Expected<Layout> layoutBuffers(const Graph& g, const UnitPlan& plan, const FromGirOptions& opt) {
  std::vector<bool> slotChoices{opt.doubleBuffer};
  if (opt.doubleBuffer) slotChoices.push_back(false);
  std::optional<Layout> last;
  int64_t wanted = 0;
  for (bool dbl : slotChoices)
    for (bool pool : {false, true}) {
      auto lay = tryLayout(g, plan, opt, dbl, pool, {});
      if (!lay) return lay;
      if (!last) wanted = lay->ubBytes;
      bool fits = lay->ubBytes <= opt.ubCapacityBytes;
      last = std::move(*lay);
      if (!fits) continue;
      if (pool)
        last->notes.push_back("UB pooled by lifetime: " + std::to_string(last->ubBytes) + " bytes, " + std::to_string(wanted) + " unpooled" +
                              (dbl ? (last->doubleBuffered ? "; the pools that fit keep two slots" : "; every pool has one slot") : ""));
      if (opt.doubleBuffer && !dbl) last->notes.push_back("double buffering dropped: it needs " + std::to_string(wanted) + " bytes of UB");
      fitTileIndices(g, plan, *last);
      return std::move(*last);
    }
  auto spilled = spillUntilFits(g, plan, opt, std::move(*last));
  if (!spilled) return spilled;
  spilled->notes.push_back("UB pooled by lifetime, one slot: " + std::to_string(spilled->ubBytes) + " bytes, " + std::to_string(wanted) +
                           " unpooled and unspilled");
  fitTileIndices(g, plan, *spilled);
  return spilled;
}

}  // namespace gir::ascend
