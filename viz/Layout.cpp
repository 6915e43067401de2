// Graphviz through its C API: agmemread the dot text, gvLayout "dot", read back ND_coord, ED_spl and
// the clusters' GD_bb, flipping y. One GVC context for the process, guarded by a mutex.
#include "viz/Layout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <mutex>
#include <sstream>
#include <unordered_map>

namespace gir::viz {

void nodeSizeInches(ItemKind k, double& width, double& height) {
  switch (k) {
    case ItemKind::Compute: width = 1.3; height = 0.45; return;
    case ItemKind::Movement: width = 1.5; height = 0.5; return;  // two lines: the buffer, then the levels
    case ItemKind::Sync: width = 1.3; height = 0.3; return;
    case ItemKind::Terminal: width = 1.1; height = 0.35; return;
    case ItemKind::Cluster: width = 1.8; height = 0.7; return;
    case ItemKind::Op: width = 1.6; height = 0.45; return;
    case ItemKind::LibraryOp: width = 2.0; height = 0.6; return;
  }
  width = height = 0.5;
}

static std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

static void writeNode(std::ostringstream& os, const VizNode& n, const char* indent) {
  double w = 0, h = 0;
  nodeSizeInches(n.kind, w, h);
  os << indent << n.key << " [width=" << w << ", height=" << h << "];\n";
}

std::string toDot(const VizGraph& g) {
  std::ostringstream os;
  os << "digraph G {\n  graph [rankdir=TB, nodesep=0.25, ranksep=0.35, compound=true];\n"
     << "  node [shape=box, fixedsize=true, label=\"\"];\n  edge [arrowsize=0.6];\n";
  std::vector<std::vector<int>> members(g.clusters.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const VizNode& n = g.nodes[i];
    if (n.kind != ItemKind::Cluster && n.cluster >= 0 && n.cluster < static_cast<int>(g.clusters.size()))
      members[n.cluster].push_back(static_cast<int>(i));
    else
      writeNode(os, n, "  ");
  }
  for (size_t c = 0; c < members.size(); ++c) {
    if (members[c].empty()) continue;
    os << "  subgraph cluster_" << c << " {\n    label=" << quoted(g.clusters[c].label) << ";\n";
    for (int i : members[c]) writeNode(os, g.nodes[i], "    ");
    os << "  }\n";
  }
  for (size_t e = 0; e < g.edges.size(); ++e)
    os << "  " << g.nodes[g.edges[e].from].key << " -> " << g.nodes[g.edges[e].to].key << " [id=e" << e << "];\n";
  os << "}\n";
  return os.str();
}

namespace {

std::mutex graphvizMutex;

GVC_t* context() {
  static GVC_t* gvc = gvContext();
  return gvc;
}

bool cancelled(const std::atomic<bool>* c) { return c && c->load(std::memory_order_relaxed); }

// Reads positions back; y is flipped with the graph's bounding box height.
void readBack(Agraph_t* ag, const VizGraph& g, Layout& out) {
  boxf bb = GD_bb(ag);
  double top = bb.UR.y;
  out.width = bb.UR.x - bb.LL.x;
  out.height = bb.UR.y - bb.LL.y;
  auto flip = [&](pointf p) { return Point{p.x - bb.LL.x, top - p.y}; };
  std::unordered_map<std::string, int> index;
  for (size_t i = 0; i < g.nodes.size(); ++i) index.emplace(g.nodes[i].key, static_cast<int>(i));
  out.nodes.assign(g.nodes.size(), {});
  out.edges.assign(g.edges.size(), {});
  out.clusters.assign(g.clusters.size(), {});
  for (Agnode_t* n = agfstnode(ag); n; n = agnxtnode(ag, n)) {
    auto it = index.find(agnameof(n));
    if (it == index.end()) continue;
    NodeBox& box = out.nodes[it->second];
    box.centre = flip(ND_coord(n));
    box.width = ND_width(n) * 72.0;
    box.height = ND_height(n) * 72.0;
    for (Agedge_t* e = agfstout(ag, n); e; e = agnxtout(ag, e)) {
      const char* id = agget(e, const_cast<char*>("id"));
      if (!id || id[0] != 'e') continue;
      size_t k = std::strtoul(id + 1, nullptr, 10);
      if (k >= out.edges.size() || !ED_spl(e) || ED_spl(e)->size < 1) continue;
      const bezier& bz = ED_spl(e)->list[0];
      EdgeRoute& r = out.edges[k];
      for (int p = 0; p < bz.size; ++p) r.bezier.push_back(flip(bz.list[p]));
      r.hasArrow = bz.eflag != 0;
      if (r.hasArrow) r.arrowTip = flip(bz.ep);
    }
  }
  for (Agraph_t* sg = agfstsubg(ag); sg; sg = agnxtsubg(sg)) {
    std::string name = agnameof(sg);
    if (name.rfind("cluster_", 0) != 0) continue;
    size_t c = std::strtoul(name.c_str() + 8, nullptr, 10);
    if (c >= out.clusters.size()) continue;
    boxf cb = GD_bb(sg);
    Point a = flip(cb.LL), b = flip(cb.UR);
    out.clusters[c] = {true, a.x, b.y, b.x, a.y};
  }
}

}  // namespace

Expected<Layout> layoutGraph(const VizGraph& g, const std::atomic<bool>* cancel) {
  if (cancelled(cancel)) return makeError("layout cancelled");
  std::string dot = toDot(g);
  std::lock_guard<std::mutex> lock(graphvizMutex);
  if (cancelled(cancel)) return makeError("layout cancelled");
  Agraph_t* ag = agmemread(dot.c_str());
  if (!ag) return makeError("Graphviz could not read the generated dot text");
  Layout out;
  if (gvLayout(context(), ag, "dot") != 0) {
    agclose(ag);
    return makeError("Graphviz dot layout failed");
  }
  if (!cancelled(cancel)) readBack(ag, g, out);
  gvFreeLayout(context(), ag);
  agclose(ag);
  if (cancelled(cancel)) return makeError("layout cancelled");
  return out;
}

}  // namespace gir::viz
