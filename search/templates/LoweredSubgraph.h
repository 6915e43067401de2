// What a lowered subgraph is: the GIR-Graph and which buffer holds which computation-graph tensor,
// so the graph (or any rewrite of it) can be run against the reference evaluator and by codegen.
#pragma once

#include <map>
#include <string>

#include "core/compute/ComputeGraph.h"
#include "core/gir/Graph.h"

namespace gir::search {

struct LoweredSubgraph {
  Graph gir;
  std::map<std::string, compute::TensorId> inputBuffers;   // GIR input buffer name -> tensor
  std::map<std::string, compute::TensorId> outputBuffers;  // GIR output buffer name -> tensor
  int64_t rows = 0, cols = 0;                              // row templates only
};

}  // namespace gir::search
