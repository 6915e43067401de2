// The one printer of the GIR text form (MLIR-like, one declaration or node per line).
#pragma once

#include <string>

#include "core/gir/Graph.h"

namespace gir {

// Canonical text: the graph is compacted first, so ids are dense and the order is topological.
std::string printGraph(const Graph& g);
// One node in the graph's own slice numbering, for diagnostics: "move %s0 -> %s1".
std::string describeNode(const Graph& g, NodeId id);
std::string formatNumber(double v);  // shortest text that parses back to the same double

}  // namespace gir
