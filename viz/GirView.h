// A GIR-Graph as a VizGraph (docs/app.md, "Tabs", GIR-Graph): one node per live gOperator, shaped by kind;
// one terminal per input/output buffer; edges from writer to reader per memory level with the bytes
// the reader moves; kernels (split by device syncs) as clusters. And the union of two versions of
// one graph for stable stepping: ids are stable across steps (erased nodes stay as tombstones).
#pragma once

#include "core/gir/Graph.h"
#include "viz/VizGraph.h"

namespace gir::viz {

VizGraph girToViz(const Graph& g);

// The union of `before` and `after` (the same graph before and after edits made through the
// GraphEditor): nodes live only in `after` are New, only in `before` Removed, in both with a
// different payload, slices or domain Changed; edges compared by (ends, level) and bytes.
VizGraph girDiff(const Graph& before, const Graph& after);

// The short label of a gOperator: "move x\ndram -> local" (the source buffer and the two levels),
// "ew.exp", "reduce.sum", "broadcast", "sync block".
std::string nodeLabel(const Graph& g, const Node& n);
ItemKind itemKindOf(const Node& n);

}  // namespace gir::viz
