// The merge rules. Each match checks every condition that makes its apply exact; apply edits only.
#include "rewrite/MergeRules.h"

#include <algorithm>

#include "rewrite/SliceAnalysis.h"

namespace gir {

namespace {

std::string sname(SliceId s) { return "%s" + std::to_string(s.value); }

bool readBySync(const Graph& g, const UseDef& ud, SliceId s) {
  for (NodeId r : ud.readers[s.value])
    if (g.node(r).isSync()) return true;
  return false;
}

bool isTemp(const Graph& g, SliceId s) { return g.buffer(g.slice(s).buffer).role == BufferRole::Temp; }

std::vector<int64_t> squeezed(const std::vector<int64_t>& v) {
  std::vector<int64_t> out;
  for (auto d : v)
    if (d != 1) out.push_back(d);
  return out;
}

bool overlaps(const UnitDomain& x, const UnitDomain& y) { return x.begin < y.end && y.begin < x.end; }

// Readers of `b` may read `a` instead of a copy of it: same element order, no sync reads it,
// readers run on units the copy covers, and DRAM traffic cannot grow.
bool copyIsRedundant(const Graph& g, const UseDef& ud, SliceId a, SliceId b, const UnitDomain& copyDomain) {
  if (!isTemp(g, b) || readBySync(g, ud, b) || readThroughMemory(ud, g.slice(b).buffer)) return false;
  if (ud.writers[b.value].size() != 1 || squeezed(g.slice(a).shape) != squeezed(g.slice(b).shape)) return false;
  for (NodeId r : ud.readers[b.value])
    if (!domainWithin(g.domainOf(g.node(r)), copyDomain)) return false;
  bool sameLevel = g.buffer(g.slice(a).buffer).level == g.buffer(g.slice(b).buffer).level;
  return sameLevel || ud.readers[b.value].size() == 1;
}

// Every reader of s on A's units; ok = all of them are movements within A's domain.
std::vector<NodeId> rawReaders(const Graph& g, const UseDef& ud, const Node& a, SliceId s, bool& ok) {
  std::vector<NodeId> out;
  ok = true;
  UnitDomain da = g.domainOf(a);
  for (NodeId r : ud.readers[s.value]) {
    UnitDomain dr = g.domainOf(g.node(r));
    if (!overlaps(dr, da)) continue;
    ok &= g.node(r).isMove() && domainWithin(dr, da);
    out.push_back(r);
  }
  return out;
}

// Reading the source once per reader must not read more DRAM than A did: disjoint reader domains.
bool readersDisjoint(const Graph& g, const std::vector<NodeId>& rs) {
  for (size_t i = 0; i < rs.size(); ++i)
    for (size_t j = i + 1; j < rs.size(); ++j)
      if (overlaps(g.domainOf(g.node(rs[i])), g.domainOf(g.node(rs[j])))) return false;
  return true;
}

}  // namespace

// Site: nodes {A, B1..Bk}: A moves a -> s and B1..Bk are every reader of s on A's units, all
// movements within A's domain. Each Bi becomes a movement from a; A goes. variant 1 (one reader
// only): the fused copy is itself redundant and readers of its destination read a directly.
void MergeRaw::matchAt(const MatchContext& ctx, NodeId anchor, std::vector<Site>& sites) const {
  const Graph& g = ctx.graph();
  const UseDef& ud = ctx.useDef();
  const Node& a = g.node(anchor);
  if (a.erased || !a.isMove()) return;
  SliceId s = a.outputs[0];
  auto refuse = [&](const char* why) {
    if (ctx.recordsRefusals()) ctx.refuse(name(), anchor, sname(s) + ": " + why);
  };
  if (!isTemp(g, s)) return refuse("the movement writes a graph input or output, not a temporary");
  if (readThroughMemory(ud, g.slice(s).buffer)) return refuse("its buffer is read through memory (a reader reads what other slices wrote)");
  bool ok = false;
  auto readers = rawReaders(g, ud, a, s, ok);
  if (readers.empty()) return refuse("nothing reads it on the movement's units");
  if (!ok) return refuse("a reader on the movement's units is not a movement within the movement's domain");
  const LevelDecl* srcLevel = g.levelOf(g.slice(a.inputs[0]).buffer);
  if (srcLevel && srcLevel->scope == Scope::Device && !readersDisjoint(g, readers))
    return refuse("the source is in DRAM and the readers' domains overlap, so DRAM reads would grow");
  SliceId dst = g.node(readers[0]).outputs[0];
  MergeRawFacts facts;
  facts.copyRedundant = readers.size() == 1 && copyIsRedundant(g, ud, a.inputs[0], dst, g.domainOf(g.node(readers[0])));
  if (facts.copyRedundant) {
    facts.rewire = ud.readers[dst.value];
    facts.eraseSlices.push_back(dst);
  }
  // s is unused afterwards when these were its only readers and A its only writer.
  if (readers.size() == ud.readers[s.value].size() && ud.writers[s.value].size() == 1) facts.eraseSlices.push_back(s);
  Site site{std::string(name()), {anchor}, {s}, g.slice(s).buffer, g.editVersion, std::move(facts)};
  site.nodes.insert(site.nodes.end(), readers.begin(), readers.end());
  sites.push_back(std::move(site));
}

Status MergeRaw::apply(GraphEditor& ed, const Site& site) const {
  const auto* facts = site.factsAs<MergeRawFacts>();
  if (!facts) return foreignSite(name(), site);
  Graph& g = ed.graph();
  NodeId aId = site.nodes[0];
  SliceId src = g.node(aId).inputs[0];
  for (size_t k = 1; k < site.nodes.size(); ++k) {
    NodeId bId = site.nodes[k];
    if (facts->copyRedundant) {
      ed.replaceReads(g.node(bId).outputs[0], src, facts->rewire);
      ed.eraseNode(bId);
      continue;
    }
    Node fused = g.node(bId);
    fused.inputs[0] = src;
    ed.replaceNode(bId, std::move(fused));
  }
  ed.eraseNode(aId);
  for (SliceId s : facts->eraseSlices) ed.eraseSlice(s);
  return success();
}

std::string MergeRaw::explain(const Graph&, const Site& site) const {
  const auto* facts = site.factsAs<MergeRawFacts>();
  if (!facts) return foreignSite(name(), site).error().message;
  std::string s = sname(site.slices[0]);
  if (facts->copyRedundant)
    return "The value is moved into " + s + " and straight out again in the same element order, so readers can use the original and both movements go.";
  return "A movement writes " + s + " and the next one reads exactly " + s + " back, so the two become one movement from the first's source to the second's destination.";
}

// Site: nodes {A, B}, two movements of one source slice on the same units; B's copy is replaced by A's.
// Anchored at A, the lower-numbered of the two.
void MergeRar::matchAt(const MatchContext& ctx, NodeId anchor, std::vector<Site>& sites) const {
  const Graph& g = ctx.graph();
  const UseDef& ud = ctx.useDef();
  const Node& a = g.node(anchor);
  if (a.erased || !a.isMove()) return;
  SliceId src = a.inputs[0], da = a.outputs[0];
  if (!isTemp(g, da) || ud.writers[da.value].size() != 1) return;
  for (NodeId bId : ud.readers[src.value]) {
    if (bId <= anchor || !g.node(bId).isMove()) continue;
    const Node& b = g.node(bId);
    SliceId db = b.outputs[0];
    auto refuse = [&](const char* why) {
      if (ctx.recordsRefusals()) ctx.refuse(name(), anchor, "with node #" + std::to_string(bId.value) + " (" + sname(db) + "): " + why);
    };
    if (g.domainOf(a) != g.domainOf(b)) { refuse("the two run on different units"); continue; }
    if (!isTemp(g, db)) { refuse("the second copy is not a temporary"); continue; }
    if (g.buffer(g.slice(da).buffer).level != g.buffer(g.slice(db).buffer).level) { refuse("the copies are at different levels"); continue; }
    if (g.slice(da).shape != g.slice(db).shape) { refuse("the copies have different shapes"); continue; }
    if (ud.writers[db.value].size() != 1) { refuse("the second copy has other writers"); continue; }
    if (readBySync(g, ud, db) || readThroughMemory(ud, g.slice(db).buffer)) { refuse("the second copy is read by a sync or through memory"); continue; }
    bool readersCovered = true;
    for (NodeId r : ud.readers[db.value]) readersCovered &= domainWithin(g.domainOf(g.node(r)), g.domainOf(b));
    if (!readersCovered) { refuse("a reader of the second copy runs on units it does not cover"); continue; }
    sites.push_back(Site{std::string(name()), {anchor, bId}, {src}, g.slice(db).buffer, g.editVersion, MergeRarFacts{ud.readers[db.value], db}});
  }
}

Status MergeRar::apply(GraphEditor& ed, const Site& site) const {
  const auto* facts = site.factsAs<MergeRarFacts>();
  if (!facts) return foreignSite(name(), site);
  SliceId keep = ed.graph().node(site.nodes[0]).outputs[0];
  ed.replaceReads(facts->dropped, keep, facts->rewire);
  ed.eraseNode(site.nodes[1]);
  ed.eraseSlice(facts->dropped);
  return success();
}

std::string MergeRar::explain(const Graph&, const Site& site) const {
  return "Two movements read " + sname(site.slices[0]) + " on the same units with no dependency between them, so one copy serves both.";
}

// Site: node {N} whose outputs are temporary slices that nothing reads.
void DeadStore::matchAt(const MatchContext& ctx, NodeId anchor, std::vector<Site>& sites) const {
  const Graph& g = ctx.graph();
  const UseDef& ud = ctx.useDef();
  const Node& n = g.node(anchor);
  if (n.erased || n.isSync()) return;
  for (SliceId s : n.outputs) {
    if (!isTemp(g, s) || !ud.readers[s.value].empty()) return;  // not a candidate: live or not a temporary
    if (readThroughMemory(ud, g.slice(s).buffer))
      return ctx.refuse(name(), anchor, sname(s) + " is unread, but its buffer is read through memory");
  }
  std::vector<SliceId> unused;
  for (SliceId s : n.outputs)
    if (ud.writers[s.value].size() == 1) unused.push_back(s);
  sites.push_back(Site{std::string(name()), {anchor}, n.outputs, {}, g.editVersion, DeadStoreFacts{unused}});
}

Status DeadStore::apply(GraphEditor& ed, const Site& site) const {
  const auto* facts = site.factsAs<DeadStoreFacts>();
  if (!facts) return foreignSite(name(), site);
  ed.eraseNode(site.nodes[0]);
  for (SliceId s : facts->unused) ed.eraseSlice(s);
  return success();
}

std::string DeadStore::explain(const Graph&, const Site& site) const {
  return "Nothing reads " + sname(site.slices[0]) + " and it is not a graph output, so the node that writes it is dead.";
}

}  // namespace gir
