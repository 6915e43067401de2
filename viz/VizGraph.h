// The drawable graph every canvas of the app shows (docs/app.md, "Decisions"): nodes with a kind, edges
// with a memory level and a byte count, clusters (kernels, subgraphs) and, for a rewrite step, the
// diff state of each item. Built from a GIR-Graph, a before/after pair or a computation graph.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace gir::viz {

// Compute, Movement and Sync are GIR gOperators; Terminal is a graph input or output buffer;
// Cluster is a collapsed kernel; Op and LibraryOp are computation-graph operators.
enum class ItemKind { Compute, Movement, Sync, Terminal, Cluster, Op, LibraryOp };
enum class DiffState { Unchanged, New, Changed, Removed };

struct VizNode {
  std::string key;     // unique, also the Graphviz node name
  std::string label;   // short text drawn in the node
  std::string detail;  // one line for tooltips and the inspector
  ItemKind kind = ItemKind::Compute;
  int cluster = -1;         // index into VizGraph::clusters, -1 for none
  int64_t source = -1;      // the GIR NodeId / buffer index / op index it stands for
  DiffState state = DiffState::Unchanged;
  bool highlighted = false;
};

struct VizEdge {
  int from = 0, to = 0;  // node indices
  std::string level;     // memory level of the slices it carries ("dram", "smem", "reg", ...)
  int64_t bytes = 0;     // bytes moved over it, all units together
  DiffState state = DiffState::Unchanged;
};

struct VizCluster {
  std::string label;
  bool highlighted = false;
  bool collapsed = false;  // drawn as one node (VizNode of kind Cluster) instead of its members
};

struct VizGraph {
  std::vector<VizNode> nodes;
  std::vector<VizEdge> edges;
  std::vector<VizCluster> clusters;
  std::map<std::string, int64_t> levelBytes;  // per level: the view's byte total

  size_t countKind(ItemKind k) const;
};

std::string_view itemKindName(ItemKind k);
std::string_view diffStateName(DiffState s);

// Graphs with more visible nodes than this are shown by cluster (design decision: ~1,000).
constexpr size_t kCollapseThreshold = 1000;

// The clusters to collapse so that what is drawn stays small: none when the graph has at most
// `threshold` nodes, otherwise every cluster the user has not expanded.
std::set<int> defaultCollapsed(const VizGraph& g, size_t threshold, const std::set<int>& expanded);

// Replaces the members of each collapsed cluster by one Cluster node; edges between collapsed
// members are dropped, the others re-attached and merged per (from, to, level) with bytes summed.
VizGraph collapseClusters(const VizGraph& g, const std::set<int>& collapsed);

// Merges edges with the same ends and level (bytes summed; a mixed diff state becomes Changed).
void mergeParallelEdges(VizGraph& g);

}  // namespace gir::viz
