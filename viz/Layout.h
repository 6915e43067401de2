// Graphviz `dot` layout of a VizGraph (docs/app.md, "Decisions"): a pure function that the app runs
// off the UI thread. Positions are in points with y growing downwards (Qt's convention).
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "viz/VizGraph.h"

namespace gir::viz {

struct Point {
  double x = 0, y = 0;
};

struct NodeBox {
  Point centre;
  double width = 0, height = 0;
};

struct EdgeRoute {
  std::vector<Point> bezier;  // cubic Bezier control points: p0, then three per segment
  bool hasArrow = false;
  Point arrowTip;             // where the arrow head points, when hasArrow
};

struct ClusterBox {
  bool drawn = false;  // false for collapsed clusters and clusters with no visible member
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct Layout {
  std::vector<NodeBox> nodes;      // per VizGraph node
  std::vector<EdgeRoute> edges;    // per VizGraph edge
  std::vector<ClusterBox> clusters;  // per VizGraph cluster
  double width = 0, height = 0;
};

// The node size the layout reserves for a kind (inches, as Graphviz counts).
void nodeSizeInches(ItemKind k, double& width, double& height);

// The dot text handed to Graphviz (also what File > Export dot writes): fixed-size nodes, kernels
// as `cluster_N` subgraphs, each edge tagged with its index.
std::string toDot(const VizGraph& g);

// Lays out with Graphviz `dot`. Graphviz has no cancellation hook: `cancel` is polled before and
// after the Graphviz call and the result is discarded when set, which is what lets the app start
// a newer layout at once. Graphviz is not thread-safe; calls are serialized internally.
Expected<Layout> layoutGraph(const VizGraph& g, const std::atomic<bool>* cancel = nullptr);

}  // namespace gir::viz
