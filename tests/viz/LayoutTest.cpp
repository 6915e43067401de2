// The GIR view and its Graphviz layout: one node item per gOperator, boxes that do not overlap and
// lie inside their kernel's cluster, edges coloured per level family, collapsing above the threshold.
#include <catch2/catch.hpp>

#include "core/gir/Json.h"
#include "core/gir/Parser.h"
#include "rewrite/Cost.h"
#include "tests/support/TestSupport.h"
#include "tests/viz/SyntheticGir.h"
#include "viz/GirView.h"
#include "viz/Layout.h"
#include "viz/Scene.h"

using namespace gir;
using namespace gir::viz;

namespace {

Graph load(const std::string& name) {
  auto g = loadGirFile(test::sourcePath("tests/golden/gir/" + name));
  REQUIRE(g.ok());
  return *g;
}

size_t operatorNodes(const VizGraph& v) {
  return v.countKind(ItemKind::Compute) + v.countKind(ItemKind::Movement) + v.countKind(ItemKind::Sync);
}

bool overlap(const NodeBox& a, const NodeBox& b) {
  return std::abs(a.centre.x - b.centre.x) * 2 < (a.width + b.width) - 1 && std::abs(a.centre.y - b.centre.y) * 2 < (a.height + b.height) - 1;
}

}  // namespace

TEST_CASE("every golden GIR graph: one view node per live gOperator, kinds and kernels as in the graph", "[viz]") {
  for (const char* name : {"shufflenet_source.gir", "shufflenet_dest.gir", "two_kernels.gir", "figure6.gir", "softmax_block.gir"}) {
    Graph g = load(name);
    VizGraph v = girToViz(g);
    INFO(name);
    CHECK(operatorNodes(v) == g.liveNodeCount());
    CHECK(v.clusters.size() == static_cast<size_t>(kernelCount(g)));
    size_t syncs = 0;
    for (const Node& n : g.nodes()) syncs += !n.erased && n.isSync();
    CHECK(v.countKind(ItemKind::Sync) == syncs);
    // The view's per-level totals are the cost model's.
    CHECK(v.levelBytes == computeCost(g).bytesPerLevel);
    for (const VizEdge& e : v.edges) {
      CHECK(e.bytes > 0);
      CHECK(g.level(e.level) != nullptr);
    }
  }
}

TEST_CASE("dot layout: boxes inside the drawing, no two overlapping, members inside their kernel", "[viz]") {
  Graph g = load("shufflenet_source.gir");
  VizGraph v = girToViz(g);
  auto layout = layoutGraph(v);
  REQUIRE(layout.ok());
  REQUIRE(layout->nodes.size() == v.nodes.size());
  for (size_t i = 0; i < v.nodes.size(); ++i) {
    const NodeBox& b = layout->nodes[i];
    CHECK(b.width > 0);
    CHECK(b.centre.x >= 0);
    CHECK(b.centre.x <= layout->width);
    CHECK(b.centre.y >= 0);
    CHECK(b.centre.y <= layout->height);
    for (size_t j = i + 1; j < v.nodes.size(); ++j) CHECK_FALSE(overlap(b, layout->nodes[j]));
    if (v.nodes[i].cluster < 0) continue;
    const ClusterBox& c = layout->clusters[v.nodes[i].cluster];
    REQUIRE(c.drawn);
    CHECK(b.centre.x > c.x0);
    CHECK(b.centre.x < c.x1);
    CHECK(b.centre.y > c.y0);
    CHECK(b.centre.y < c.y1);
  }
  for (const EdgeRoute& r : layout->edges) {
    CHECK(r.bezier.size() >= 4);
    CHECK((r.bezier.size() - 1) % 3 == 0);
  }
  // Data flows downwards: a kernel-0 node sits above every kernel-2 node.
  std::vector<int> k = kernelIndices(g);
  for (size_t i = 0; i < v.nodes.size(); ++i)
    for (size_t j = 0; j < v.nodes.size(); ++j)
      if (v.nodes[i].cluster == 0 && v.nodes[j].cluster == 2) CHECK(layout->nodes[i].centre.y < layout->nodes[j].centre.y);
}

TEST_CASE("a set cancel flag stops the layout and reports it", "[viz]") {
  std::atomic<bool> cancel{true};
  auto layout = layoutGraph(girToViz(load("two_kernels.gir")), &cancel);
  REQUIRE_FALSE(layout.ok());
  CHECK(layout.error().message.find("cancelled") != std::string::npos);
}

TEST_CASE("above the threshold kernels collapse, bytes between kernels are kept, inside ones dropped", "[viz]") {
  auto g = parseGirText(test::syntheticGirText(120, 8), "synthetic");  // 120 x 10 operators + 119 syncs
  REQUIRE(g.ok());
  VizGraph v = girToViz(*g);
  REQUIRE(operatorNodes(v) == g->liveNodeCount());
  REQUIRE(v.nodes.size() > kCollapseThreshold);
  std::set<int> collapsed = defaultCollapsed(v, kCollapseThreshold, {});
  CHECK(collapsed.size() == v.clusters.size());
  VizGraph c = collapseClusters(v, collapsed);
  size_t outside = 0;
  for (const VizNode& n : v.nodes) outside += n.cluster < 0;
  CHECK(c.nodes.size() == v.clusters.size() + outside);
  CHECK(c.countKind(ItemKind::Cluster) == v.clusters.size());
  auto crossBytes = [](const VizGraph& x) {
    int64_t sum = 0;
    for (const VizEdge& e : x.edges)
      if (x.nodes[e.from].cluster != x.nodes[e.to].cluster || x.nodes[e.from].cluster < 0) sum += e.bytes;
    return sum;
  };
  int64_t sum = 0;
  for (const VizEdge& e : c.edges) sum += e.bytes;
  CHECK(sum == crossBytes(v));
  // Expanding one kernel brings back exactly its members.
  std::set<int> fewer = defaultCollapsed(v, kCollapseThreshold, {3});
  VizGraph e = collapseClusters(v, fewer);
  CHECK(e.nodes.size() == c.nodes.size() - 1 + 10);
  auto layout = layoutGraph(e);
  REQUIRE(layout.ok());
  CHECK(layout->clusters[3].drawn);
  CHECK_FALSE(layout->clusters[4].drawn);
  // Small graphs are never collapsed.
  CHECK(defaultCollapsed(girToViz(load("two_kernels.gir")), kCollapseThreshold, {}).empty());
}

TEST_CASE("scene: one item per node and edge, level colours by family, width grows with bytes, legend lists levels", "[viz]") {
  CHECK(levelColor("dram") == levelColor("global"));
  CHECK(levelColor("GM") == levelColor("dram"));
  CHECK(levelColor("smem") == levelColor("shared"));
  CHECK(levelColor("ub") == levelColor("smem"));
  CHECK(levelColor("reg") == levelColor("local"));
  CHECK(levelColor("dram") != levelColor("smem"));
  CHECK(levelColor("smem") != levelColor("reg"));
  CHECK(levelColor("l2") == levelColor("l2"));
  CHECK(edgeWidthForBytes(100) < edgeWidthForBytes(1 << 20));
  CHECK(edgeWidthForBytes(int64_t{1} << 40) <= 8.0);
  Graph g = load("softmax_block.gir");
  VizGraph v = girToViz(g);
  auto layout = layoutGraph(v);
  REQUIRE(layout.ok());
  SceneModel s = buildScene(v, *layout);
  CHECK(s.nodes.size() == v.nodes.size());
  CHECK(s.edges.size() == v.edges.size());
  for (const SceneEdge& e : s.edges) CHECK(e.color == levelColor(v.edges[e.index].level));
  std::set<QString> levels;
  for (const LegendEntry& l : s.legend)
    if (l.kind == LegendEntry::Kind::Level) levels.insert(l.text);
  for (const auto& [level, bytes] : v.levelBytes) CHECK(levels.count(QString::fromStdString(level)));
  CHECK(toDot(v).find("subgraph cluster_0") != std::string::npos);
}
