// A model's computation graph as a VizGraph (docs/app.md, "Tabs", Model): one node per op,
// memory-bound subgraphs as highlighted clusters, library ops labelled with their arithmetic
// intensity and the decision taken (library call or lowered to GIR), tensors as DRAM edges.
#pragma once

#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"
#include "viz/VizGraph.h"

namespace gir::viz {

VizGraph modelToViz(const compute::Graph& g, const compute::PreprocessResult& pre);

}  // namespace gir::viz
