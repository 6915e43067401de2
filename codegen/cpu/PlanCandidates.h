// The candidate GIR-Graphs of one memory-bound subgraph, per planner, for `gir run`, the tests and
// the benchmark. This is the one place that turns a planner's choice into a lowered subgraph: the
// planners of search/ModelPlanner.h (gir: the template search; eager, xla, tvm: their kernel groups
// lowered with the same templates), in two variants (units per block 4 and 1).
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
  std::string variant;  // the template parameters, e.g. "units/block=4"
  std::optional<search::LoweredSubgraph> lowered;
  std::string skipReason;  // when not lowered: why, naming the scenario's op or the missing piece
};

// Whether `grouped` is `single` with its units grouped in blocks and nothing else: no block sync, no
// block-scope buffer, and the same GIR-Graph but for the units per block. Such a variant is the same
// kernel visited in coarser steps: measured, the two differed by the host's noise only, and the model,
// which cannot tell them apart, picked the first of the tie (docs/cpu.md, "Variants").
bool onlyGroupsUnits(const Graph& grouped, const Graph& single);

// Candidates for the planners asked for; several template variants per lowerable planner. A 4-unit
// variant that only groups the planner's 1-unit variant (onlyGroupsUnits) is a skip saying so.
std::vector<PlanCandidate> planCandidates(const compute::Graph& model, const compute::Subgraph& sub, const HardwareDesc& hw,
                                          const std::vector<std::string>& planners);

}  // namespace gir::codegen::cpu
