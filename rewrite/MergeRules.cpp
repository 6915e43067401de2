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

// Some unwritten slice of this buffer is read through memory (its values come from these writes).
bool readThroughMemory(const Graph& g, const UseDef& ud, BufferId b) {
  for (size_t s = 0; s < g.slices().size(); ++s)
    if (!g.slices()[s].erased && g.slices()[s].buffer == b && !ud.memoryWriters[s].empty()) return true;
  return false;
}

bool isTemp(const Graph& g, SliceId s) { return g.buffer(g.slice(s).buffer).role == BufferRole::Temp; }

std::vector<int64_t> squeezed(const std::vector<int64_t>& v) {
  std::vector<int64_t> out;
  for (auto d : v)
    if (d != 1) out.push_back(d);
  return out;
}

// Readers of `b` may read `a` instead of a copy of it: same element order, no sync reads it,
// readers run on units the copy covers, and DRAM traffic cannot grow.
bool copyIsRedundant(const Graph& g, const UseDef& ud, SliceId a, SliceId b, const UnitDomain& copyDomain) {
  if (!isTemp(g, b) || readBySync(g, ud, b) || readThroughMemory(g, ud, g.slice(b).buffer)) return false;
  if (ud.writers[b.value].size() != 1 || squeezed(g.slice(a).shape) != squeezed(g.slice(b).shape)) return false;
  for (NodeId r : ud.readers[b.value])
    if (!domainWithin(g.domainOf(g.node(r)), copyDomain)) return false;
  bool sameLevel = g.buffer(g.slice(a).buffer).level == g.buffer(g.slice(b).buffer).level;
  return sameLevel || ud.readers[b.value].size() == 1;
}

}  // namespace

// Site: nodes {A, B1..Bk}: A moves a -> s and B1..Bk are every reader of s on A's units, all
// movements within A's domain. Each Bi becomes a movement from a; A goes. variant 1 (one reader
// only): the fused copy is itself redundant and readers of its destination read a directly.
namespace {

bool overlaps(const UnitDomain& x, const UnitDomain& y) { return x.begin < y.end && y.begin < x.end; }

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

std::vector<Site> MergeRaw::match(const Graph& g) const {
  std::vector<Site> sites;
  UseDef ud = computeUseDef(g);
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& a = g.nodes()[i];
    if (a.erased || !a.isMove()) continue;
    SliceId s = a.outputs[0];
    if (!isTemp(g, s) || readThroughMemory(g, ud, g.slice(s).buffer)) continue;
    bool ok = false;
    auto readers = rawReaders(g, ud, a, s, ok);
    if (!ok || readers.empty()) continue;
    const LevelDecl* srcLevel = g.levelOf(g.slice(a.inputs[0]).buffer);
    if (srcLevel && srcLevel->scope == Scope::Device && !readersDisjoint(g, readers)) continue;
    int variant = readers.size() == 1 && copyIsRedundant(g, ud, a.inputs[0], g.node(readers[0]).outputs[0],
                                                         g.domainOf(g.node(readers[0]))) ? 1 : 0;
    Site site{std::string(name()), {NodeId(i)}, {s}, g.slice(s).buffer, Scope::Lane, "", variant, g.editVersion};
    site.nodes.insert(site.nodes.end(), readers.begin(), readers.end());
    sites.push_back(std::move(site));
  }
  return sites;
}

Status MergeRaw::apply(GraphEditor& ed, const Site& site) const {
  Graph& g = ed.graph();
  NodeId aId = site.nodes[0];
  SliceId src = g.node(aId).inputs[0];
  for (size_t k = 1; k < site.nodes.size(); ++k) {
    NodeId bId = site.nodes[k];
    if (site.variant == 1) {
      SliceId dst = g.node(bId).outputs[0];
      ed.replaceReads(dst, src);
      ed.eraseNode(bId);
      ed.eraseSlice(dst);
      continue;
    }
    Node fused = g.node(bId);
    fused.inputs[0] = src;
    ed.replaceNode(bId, std::move(fused));
  }
  ed.eraseNode(aId);
  UseDef ud = computeUseDef(g);
  SliceId s = site.slices[0];
  if (ud.readers[s.value].empty() && ud.writers[s.value].empty()) ed.eraseSlice(s);
  return success();
}

std::string MergeRaw::explain(const Graph&, const Site& site) const {
  std::string s = sname(site.slices[0]);
  if (site.variant == 1)
    return "The value is moved into " + s + " and straight out again in the same element order, so readers can use the original and both movements go.";
  return "A movement writes " + s + " and the next one reads exactly " + s + " back, so the two become one movement from the first's source to the second's destination.";
}

// Site: nodes {A, B}, two movements of one source slice on the same units; B's copy is replaced by A's.
std::vector<Site> MergeRar::match(const Graph& g) const {
  std::vector<Site> sites;
  UseDef ud = computeUseDef(g);
  for (size_t s = 0; s < g.slices().size(); ++s) {
    std::vector<NodeId> moves;
    for (NodeId r : ud.readers[s])
      if (g.node(r).isMove()) moves.push_back(r);
    for (size_t i = 0; i < moves.size(); ++i)
      for (size_t j = i + 1; j < moves.size(); ++j) {
        const Node& a = g.node(moves[i]);
        const Node& b = g.node(moves[j]);
        SliceId da = a.outputs[0], db = b.outputs[0];
        if (g.domainOf(a) != g.domainOf(b) || !isTemp(g, da) || !isTemp(g, db)) continue;
        if (g.buffer(g.slice(da).buffer).level != g.buffer(g.slice(db).buffer).level) continue;
        if (g.slice(da).shape != g.slice(db).shape || ud.writers[db.value].size() != 1 || ud.writers[da.value].size() != 1) continue;
        if (readBySync(g, ud, db) || readThroughMemory(g, ud, g.slice(db).buffer)) continue;
        bool readersCovered = true;
        for (NodeId r : ud.readers[db.value]) readersCovered &= domainWithin(g.domainOf(g.node(r)), g.domainOf(b));
        if (!readersCovered) continue;
        sites.push_back(Site{std::string(name()), {moves[i], moves[j]}, {SliceId(static_cast<uint32_t>(s))}, g.slice(db).buffer,
                             Scope::Lane, "", 0, g.editVersion});
      }
  }
  return sites;
}

Status MergeRar::apply(GraphEditor& ed, const Site& site) const {
  Graph& g = ed.graph();
  SliceId keep = g.node(site.nodes[0]).outputs[0], drop = g.node(site.nodes[1]).outputs[0];
  ed.replaceReads(drop, keep);
  ed.eraseNode(site.nodes[1]);
  ed.eraseSlice(drop);
  return success();
}

std::string MergeRar::explain(const Graph&, const Site& site) const {
  return "Two movements read " + sname(site.slices[0]) + " on the same units with no dependency between them, so one copy serves both.";
}

// Site: node {N} whose outputs are temporary slices that nothing reads.
std::vector<Site> DeadStore::match(const Graph& g) const {
  std::vector<Site> sites;
  UseDef ud = computeUseDef(g);
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    if (n.erased || n.isSync()) continue;
    bool dead = true;
    for (SliceId s : n.outputs)
      dead &= isTemp(g, s) && ud.readers[s.value].empty() && !readThroughMemory(g, ud, g.slice(s).buffer);
    if (dead) sites.push_back(Site{std::string(name()), {NodeId(i)}, n.outputs, {}, Scope::Lane, "", 0, g.editVersion});
  }
  return sites;
}

Status DeadStore::apply(GraphEditor& ed, const Site& site) const {
  ed.eraseNode(site.nodes[0]);
  for (SliceId s : site.slices) ed.eraseSlice(s);
  return success();
}

std::string DeadStore::explain(const Graph&, const Site& site) const {
  return "Nothing reads " + sname(site.slices[0]) + " and it is not a graph output, so the node that writes it is dead.";
}

}  // namespace gir
