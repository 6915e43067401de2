// Collapsing clusters and merging parallel edges: the operations that keep big views small.
#include "viz/VizGraph.h"

#include <algorithm>
#include <tuple>

namespace gir::viz {

size_t VizGraph::countKind(ItemKind k) const {
  return static_cast<size_t>(std::count_if(nodes.begin(), nodes.end(), [k](const VizNode& n) { return n.kind == k; }));
}

std::string_view itemKindName(ItemKind k) {
  switch (k) {
    case ItemKind::Compute: return "compute";
    case ItemKind::Movement: return "data movement";
    case ItemKind::Sync: return "sync";
    case ItemKind::Terminal: return "input/output buffer";
    case ItemKind::Cluster: return "collapsed kernel";
    case ItemKind::Op: return "operator";
    case ItemKind::LibraryOp: return "library operator";
  }
  return "?";
}

std::string_view diffStateName(DiffState s) {
  switch (s) {
    case DiffState::Unchanged: return "unchanged";
    case DiffState::New: return "new";
    case DiffState::Changed: return "changed";
    case DiffState::Removed: return "removed";
  }
  return "?";
}

std::set<int> defaultCollapsed(const VizGraph& g, size_t threshold, const std::set<int>& expanded) {
  std::set<int> out;
  if (g.nodes.size() <= threshold) return out;
  for (int c = 0; c < static_cast<int>(g.clusters.size()); ++c)
    if (!expanded.count(c)) out.insert(c);
  return out;
}

static DiffState combine(DiffState a, DiffState b) { return a == b ? a : DiffState::Changed; }

void mergeParallelEdges(VizGraph& g) {
  std::map<std::tuple<int, int, std::string>, size_t> seen;
  std::vector<VizEdge> out;
  out.reserve(g.edges.size());
  for (VizEdge& e : g.edges) {
    auto key = std::make_tuple(e.from, e.to, e.level);
    auto it = seen.find(key);
    if (it == seen.end()) {
      seen.emplace(key, out.size());
      out.push_back(std::move(e));
      continue;
    }
    VizEdge& kept = out[it->second];
    kept.bytes += e.bytes;
    kept.state = combine(kept.state, e.state);
  }
  g.edges = std::move(out);
}

VizGraph collapseClusters(const VizGraph& g, const std::set<int>& collapsed) {
  VizGraph out;
  out.clusters = g.clusters;
  out.levelBytes = g.levelBytes;
  for (int c : collapsed)
    if (c >= 0 && c < static_cast<int>(out.clusters.size())) out.clusters[c].collapsed = true;
  std::vector<int> remap(g.nodes.size(), -1);
  std::map<int, int> clusterNode;  // cluster -> its collapsed node
  std::vector<int> members(g.clusters.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const VizNode& n = g.nodes[i];
    if (n.cluster < 0 || !collapsed.count(n.cluster)) {
      remap[i] = static_cast<int>(out.nodes.size());
      out.nodes.push_back(n);
      continue;
    }
    ++members[n.cluster];
    auto [it, fresh] = clusterNode.emplace(n.cluster, static_cast<int>(out.nodes.size()));
    if (fresh) {
      VizNode box;
      box.key = "cluster_node_" + std::to_string(n.cluster);
      box.kind = ItemKind::Cluster;
      box.source = n.cluster;
      box.state = n.state;
      box.highlighted = g.clusters[n.cluster].highlighted;
      out.nodes.push_back(box);
    } else {
      out.nodes[it->second].state = combine(out.nodes[it->second].state, n.state);
    }
    remap[i] = it->second;
  }
  for (const auto& [c, idx] : clusterNode) {
    out.nodes[idx].label = g.clusters[c].label + "\n" + std::to_string(members[c]) + " nodes";
    out.nodes[idx].detail = g.clusters[c].label + " (collapsed, " + std::to_string(members[c]) + " nodes)";
  }
  for (const VizEdge& e : g.edges) {
    VizEdge r = e;
    r.from = remap[e.from];
    r.to = remap[e.to];
    if (r.from == r.to) continue;
    out.edges.push_back(r);
  }
  mergeParallelEdges(out);
  return out;
}

}  // namespace gir::viz
