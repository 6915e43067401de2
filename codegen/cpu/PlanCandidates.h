// The candidate GIR-Graphs of one memory-bound subgraph, per planner, for `gir run`, the tests and
// the benchmark. This is the one place that turns a planner's choice into a lowered subgraph: today
// it uses the row templates (search/templates/RowLowering.h) — `eager` is the per-op lowering (one
// kernel per op, as PyTorch eager runs it), `gir` is that graph after the greedy optimizer — and
// reports the xla-like and tvm-like plans as not yet lowerable. When the general template lowering
// and search land, only planCandidates() changes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "search/templates/LoweredSubgraph.h"

namespace gir::codegen::cpu {

struct PlanCandidate {
  std::string planner;  // gir | eager | xla | tvm
  std::string variant;  // the template parameters, e.g. "rows/unit=1 block=4"
  std::optional<search::LoweredSubgraph> lowered;
  std::string skipReason;  // when not lowered: why, naming the scenario's op or the missing piece
};

// Every planner name `gir run --planner` accepts, in report order.
const std::vector<std::string>& plannerNames();

// Candidates for the planners asked for; several template variants per lowerable planner.
std::vector<PlanCandidate> planCandidates(const compute::Graph& model, const compute::Subgraph& sub, const HardwareDesc& hw,
                                          const std::vector<std::string>& planners);

}  // namespace gir::codegen::cpu
