// Find over a drawn graph (issue #18, docs/app.md "Find"): the nodes whose name, label or details
// contain a query, case-insensitively — ONNX node names, op types and tensors on the Model tab; GIR
// node kinds, buffers and levels on the GIR-Graph tab (a GIR node's details are its printed IR line).
#pragma once

#include <string_view>
#include <vector>

#include "viz/VizGraph.h"

namespace gir::viz {

// Indices into g.nodes, in node order; empty for an empty query. Collapsed cluster nodes are not
// hits themselves (their members are, in the full graph).
std::vector<int> findNodes(const VizGraph& g, std::string_view query);

}  // namespace gir::viz
