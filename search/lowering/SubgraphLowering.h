// A memory-bound subgraph lowered op by op to GIR with one template per op (GIR paper section 6):
// each op is its own kernel (load its box -> compute in registers -> store), and the per-op
// graphs are merged with a device sync between the store of a tensor and the loads of it, ready
// for the greedy optimizer, which lowers those syncs and removes the store/load pairs wherever the
// chosen templates let a unit read what it wrote itself.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"
#include "core/gir/Graph.h"
#include "core/hw/HardwareDesc.h"
#include "search/lowering/TemplateState.h"
#include "search/templates/LoweredSubgraph.h"

namespace gir::search {

struct LoweringOptions {
  int64_t unitsPerBlock = 4;
  // Names of DRAM buffers per tensor (default: the tensor's name); fragments of a baseline plan
  // share the names of the tensors they exchange.
  std::function<std::string(compute::TensorId)> bufferName;
  std::string graphName;
};

// The templates an op offers, most promising first: follow each input produced inside the
// subgraph, then lead (at most two of the natural splits of the concat its chain of single readers
// reaches, LeadBoxes.h), then natural splits (reductions keep reduced dims inside a unit).
// `widestBoxes` (a subgraph searched on its reduced instance, docs/scale.md): each natural split
// takes the widest tile whose box fits the budget, so the unit count at full size follows from the
// box; otherwise splits within 1,024 units are offered first, with tiles 1, 4 and 16.
std::vector<OpTemplate> templateOptions(const compute::Graph& g, const compute::Subgraph& sub, size_t opIndex, int64_t maxBoxElements,
                                        bool widestBoxes = false);

// Why templateOptions offers nothing for sub.ops[i], in one sentence: the op kind has no template, or
// (the usual case at real sizes) no split gives a unit's box within the register budget, with the
// smallest box a split could give.
std::string noTemplateReason(const compute::Graph& g, const compute::Subgraph& sub, size_t opIndex, int64_t maxBoxElements);

// `choice[i]` is the template of sub.ops[i]. Fails when a template does not apply (a follow whose
// producer's units do not hold boxes of this op, an op without a template).
Expected<LoweredSubgraph> lowerSubgraph(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                                        const std::vector<OpTemplate>& choice, const LoweringOptions& options = {});
// The same for a complete template state.
Expected<LoweredSubgraph> lowerSubgraph(const TemplateState& state, const HardwareDesc& hw, const LoweringOptions& options = {});

}  // namespace gir::search
