// sync-insertion: match is the analysis (who writes what each unit reads), apply only inserts.
#include "rewrite/SyncInsertion.h"

#include <algorithm>
#include <set>

#include "core/gir/Interpreter.h"
#include "rewrite/SliceAnalysis.h"
#include "rewrite/UnitRanges.h"

namespace gir {

namespace {

std::vector<SliceId> slicesOn(const Graph& g, const std::vector<SliceId>& v, BufferId b) {
  std::vector<SliceId> out;
  for (SliceId s : v)
    if (g.slice(s).buffer == b) out.push_back(s);
  return out;
}

// Lane scope: one slice written and the same pattern read back by the same units.
bool isLaneExchange(const Graph& g, const UseDef& ud, const std::vector<SliceId>& in, const std::vector<SliceId>& out) {
  if (in.size() != 1 || out.size() != 1 || !g.slice(in[0]).samePattern(g.slice(out[0]))) return false;
  for (NodeId r : ud.readers[out[0].value]) {
    if (g.node(r).isSync()) return false;
    bool covered = false;
    for (NodeId w : ud.writers[in[0].value]) covered |= domainWithin(g.domainOf(g.node(r)), g.domainOf(g.node(w)));
    if (!covered) return false;
  }
  return true;
}

const LevelDecl* firstLevelWithScope(const Graph& g, Scope s) {
  for (const auto& l : g.levels)
    if (l.scope == s) return &l;
  return nullptr;
}

// The level to promote `b` to for an exchange of scope `s`, or "" to stay where it is.
std::string promotionLevel(const MatchContext& ctx, BufferId b, Scope s) {
  const Graph& g = ctx.graph();
  const Buffer& buf = g.buffer(b);
  if (buf.role != BufferRole::Temp || s == Scope::Device) return "";
  const LevelDecl* target = firstLevelWithScope(g, s == Scope::Lane ? Scope::Unit : s);
  const LevelDecl* current = g.level(buf.level);
  if (!target || !current || target->name == current->name || !scopeCovers(current->scope, target->scope)) return "";
  int64_t maxElems = 0;
  if (!ctx.staysWithinScope(b, target->scope, maxElems)) return "";
  if (!ctx.fitsAtLevel(target->name, b, maxElems * 4)) return "";
  return target->name;
}

}  // namespace

std::optional<Scope> SyncInsertion::neededScope(const Graph& g, const UseDef& ud, NodeId sync, BufferId b) {
  const Node& s = g.node(sync);
  auto in = slicesOn(g, s.inputs, b), out = slicesOn(g, s.outputs, b);
  if (isLaneExchange(g, ud, in, out)) return Scope::Lane;
  for (SliceId o : out)
    for (NodeId r : ud.readers[o.value])
      if (g.node(r).isSync()) return Scope::Device;  // a chain of syncs: leave it to the later one
  std::optional<Scope> byRanges;
  if (exchangeScopeByRanges(g, ud, in, out, byRanges)) return byRanges;
  thread_local ElementWriters writer;
  writer.collect(g, ud, b, in);
  Scope needed = Scope::Unit;
  thread_local std::vector<ElementRun> runs;  // the elements in their order, as runs (no per-element list)
  for (SliceId o : out)
    for (NodeId r : ud.readers[o.value]) {
      if (g.node(r).isSync()) return Scope::Device;  // a chain of syncs: leave it to the later one
      UnitDomain d = g.domainOf(g.node(r));
      for (int64_t v = d.begin; v < d.end; ++v) {
        sliceRuns(g.slice(o), v, runs);
        for (const ElementRun& run : runs)
          for (int64_t e = run.begin; e < run.end; ++e) {
            int64_t w = writer[e];
            if (w < 0) return std::nullopt;
            if (w == v) continue;
            if (g.blockOf(w) == g.blockOf(v)) needed = std::max(needed, Scope::Block);
            else return Scope::Device;
          }
      }
    }
  return needed;
}

// The greedy driver asks again for every sync an edit pushes back on its worklist, and the element
// walk (ElementWriters) was 12 % of the GPT-2 decode step's plan time.
std::optional<Scope> SyncInsertion::neededScope(const MatchContext& ctx, NodeId sync, BufferId b) {
  const Graph& g = ctx.graph();
  const UseDef& ud = ctx.useDef();
  const Node& n = g.node(sync);
  constexpr int64_t kNeededScopeQuestion = 1;
  thread_local std::vector<int64_t> key;
  key.assign({kNeededScopeQuestion, g.units, g.unitsPerBlock});
  for (SliceId s : slicesOn(g, n.inputs, b)) appendAccessKey(g, ud, s, key);
  key.push_back(-4);
  for (SliceId s : slicesOn(g, n.outputs, b)) appendAccessKey(g, ud, s, key);
  uint64_t slot = (uint64_t{sync.value} << 32) | b.value;
  if (auto kept = ctx.recall(slot, key)) return *kept < 0 ? std::nullopt : std::optional<Scope>(static_cast<Scope>(*kept));
  auto scope = neededScope(g, ud, sync, b);
  ctx.remember(slot, key, scope ? static_cast<int64_t>(*scope) : -1);
  return scope;
}

// The paper's rule is about two data movements around the sync: every writer before it and every
// reader after it (of this buffer) must be a movement. (An elementwise op in the way is swap's job.)
static bool movementsAround(const Graph& g, const UseDef& ud, const Node& sync, BufferId b) {
  for (SliceId s : slicesOn(g, sync.inputs, b))
    for (NodeId w : ud.writers[s.value])
      if (!g.node(w).isMove()) return false;
  for (SliceId s : slicesOn(g, sync.outputs, b))
    for (NodeId r : ud.readers[s.value])
      if (!g.node(r).isMove()) return false;
  return true;
}

namespace {

// The device syncs sync insertion could lower as well: each of their buffers moves between units of
// one block at most (a device sync in front of an elementwise op waits for swap; it counts as staying).
std::vector<bool> lowerableDeviceSyncs(const Graph& g, const UseDef& ud) {
  std::vector<bool> lowerable(g.nodes().size(), false);
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    if (n.erased || !n.isSync() || n.syncScope() != Scope::Device) continue;
    bool lowers = true;
    for (SliceId s : n.inputs) {
      BufferId b = g.slice(s).buffer;
      auto scope = SyncInsertion::neededScope(g, ud, NodeId(i), b);
      lowers = lowers && scope && *scope < Scope::Device && movementsAround(g, ud, n, b);
    }
    lowerable[i] = lowers;
  }
  return lowerable;
}

// Lowering a device sync must not leave a buffer below device scope in two kernels (docs/gir.md,
// "Kernels") for good: where a device sync that must stay still separates a writer of `b` from one of
// its readers, or splits another buffer's users, the back ends would keep that data in device memory,
// and the step would add DRAM bytes instead of saving them. Other device syncs that sync insertion can
// lower too count as lowered: two syncs that each keep a unit's own data lower one after the other
// (tests/rewrite/KernelBoundaryTest.cpp).
bool keepsUnitDataInOneKernel(const Graph& g, const UseDef& ud, NodeId sync, BufferId b, const std::string& promotedTo) {
  if (g.node(sync).syncScope() != Scope::Device) return true;  // kernels do not change
  auto before = buffersAcrossKernels(g, kernelIndices(g, ud, {}));
  std::vector<bool> lowered = lowerableDeviceSyncs(g, ud);
  lowered[sync.value] = true;
  auto kernelOf = kernelIndices(g, ud, lowered);
  auto after = buffersAcrossKernels(g, kernelOf);
  for (size_t i = 0; i < after.size(); ++i)
    if (after[i] && !before[i]) return false;
  const LevelDecl* l = g.level(promotedTo.empty() ? g.buffer(b).level : promotedTo);
  if (!l || l->scope == Scope::Device) return true;
  int kernel = -1;
  for (SliceId s : ud.slicesOfBuffer[b.value])
    for (const auto* users : {&ud.writers[s.value], &ud.readers[s.value]})
      for (NodeId n : *users) {
        if (kernelOf[n.value] < 0) continue;
        if (kernel >= 0 && kernelOf[n.value] != kernel) return false;
        kernel = kernelOf[n.value];
      }
  return true;
}

}  // namespace

void SyncInsertion::matchAt(const MatchContext& ctx, NodeId anchor, std::vector<Site>& sites) const {
  const Graph& g = ctx.graph();
  const UseDef& ud = ctx.useDef();
  const Node& n = g.node(anchor);
  if (n.erased || !n.isSync()) return;
  std::set<BufferId> buffers;
  for (SliceId s : n.inputs) buffers.insert(g.slice(s).buffer);
  auto refuse = [&](BufferId b, const std::string& why) {
    if (ctx.recordsRefusals()) ctx.refuse(name(), anchor, "buffer %" + g.buffer(b).name + ": " + why);
  };
  for (BufferId b : buffers) {
    auto out = slicesOn(g, n.outputs, b);
    if (out.empty() || g.buffer(b).role == BufferRole::Input) continue;
    if (!movementsAround(g, ud, n, b)) {
      refuse(b, "a writer before the sync or a reader after it is not a data movement (an elementwise op in the way is swap's to move)");
      continue;
    }
    auto scope = neededScope(ctx, anchor, b);
    if (!scope) {
      refuse(b, "some element read after the sync is not written before it");
      continue;
    }
    if (*scope >= n.syncScope()) {
      if (ctx.recordsRefusals())
        refuse(b, "the exchange needs " + std::string(scopeName(*scope)) + " scope and the sync already is " + std::string(scopeName(n.syncScope())));
      continue;
    }
    SyncInsertionFacts facts{*scope, promotionLevel(ctx, b, *scope), {}};
    if (!keepsUnitDataInOneKernel(g, ud, anchor, b, facts.level)) {
      refuse(b, "another device sync would still split the data's users into two kernels, where it stays in device memory");
      continue;
    }
    if (*scope == Scope::Lane) facts.rewire = ud.readers[out[0].value];
    sites.push_back(Site{std::string(name()), {anchor}, {}, b, g.editVersion, std::move(facts)});
  }
}

Status SyncInsertion::apply(GraphEditor& ed, const Site& site) const {
  const auto* facts = site.factsAs<SyncInsertionFacts>();
  if (!facts) return foreignSite(name(), site);
  Graph& g = ed.graph();
  NodeId syncId = site.nodes[0];
  Node sync = g.node(syncId);
  auto in = slicesOn(g, sync.inputs, site.buffer), out = slicesOn(g, sync.outputs, site.buffer);
  if (!facts->level.empty()) {
    Buffer b = g.buffer(site.buffer);
    b.level = facts->level;
    ed.replaceBuffer(site.buffer, std::move(b));
  }
  Node rest = sync;
  auto drop = [&](std::vector<SliceId>& v) {
    v.erase(std::remove_if(v.begin(), v.end(), [&](SliceId s) { return g.slice(s).buffer == site.buffer; }), v.end());
  };
  drop(rest.inputs);
  drop(rest.outputs);
  if (rest.inputs.empty() || rest.outputs.empty()) ed.eraseNode(syncId);
  else ed.replaceNode(syncId, std::move(rest));
  if (facts->scope == Scope::Lane) {
    ed.replaceReads(out[0], in[0], facts->rewire);
    ed.eraseSlice(out[0]);
    return success();
  }
  ed.addNode(Node{SyncPayload{facts->scope}, in, out, sync.domain});
  return success();
}

std::string SyncInsertion::explain(const Graph& g, const Site& site) const {
  const auto* facts = site.factsAs<SyncInsertionFacts>();
  if (!facts) return foreignSite(name(), site).error().message;
  const Buffer& b = g.buffer(site.buffer);
  std::string from = std::string(scopeName(g.node(site.nodes[0]).syncScope()));
  std::string promo = facts->level.empty() ? "" : ", so '%" + b.name + "' moves from " + b.level + " to " + facts->level;
  switch (facts->scope) {
    case Scope::Lane:
      return "Every unit reads back exactly the elements of '%" + b.name + "' it wrote, in the same order (lane scope)" + promo +
             " and the " + from + " sync goes away.";
    case Scope::Unit:
      return "Every unit reads only elements of '%" + b.name + "' that it wrote itself (unit scope)" + promo + " and the " + from +
             " sync becomes a unit sync.";
    case Scope::Block:
      return "Every unit reads only elements of '%" + b.name + "' written by units of its own block (block scope)" + promo +
             " and the " + from + " sync becomes a block sync.";
    case Scope::Device: break;
  }
  return "Units read elements of '%" + b.name + "' written in other blocks: the sync must stay device-wide.";
}

}  // namespace gir
