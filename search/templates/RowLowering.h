// Row templates (GIR paper section 6; docs/templates.md): a memory-bound subgraph whose tensors are
// all views of one row space [rows, cols] — full rows, one value per row (reduced over the last
// axis), one vector per column (gamma, beta) or a scalar — lowers op by op to GIR-Graphs that share
// one parallel structure: unit u owns `rowsPerUnit` consecutive rows. Each op is its own kernel
// (load -> compute in registers -> store), and the per-op graphs are merged with a device sync
// between the store of a tensor and its loads, ready for the greedy optimizer.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"
#include "core/gir/Graph.h"
#include "core/hw/HardwareDesc.h"
#include "search/templates/LoweredSubgraph.h"

namespace gir::search {

struct RowTemplateParams {
  int64_t rowsPerUnit = 1;
  int64_t unitsPerBlock = 4;
};

// Fails with the op and the reason when the subgraph is not row-wise or an op has no row template.
Expected<LoweredSubgraph> lowerRowwise(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                                       const RowTemplateParams& params);

}  // namespace gir::search
