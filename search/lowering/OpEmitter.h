// One op's per-unit programs: load the unit's box of every input into registers (broadcast where
// the input does not vary), compute, store the unit's box of every output. This is the op's GIR
// template; the box choice (UnitBoxes) is its parameter.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/compute/ComputeGraph.h"
#include "search/lowering/UnitBoxes.h"
#include "search/lowering/UnitProgram.h"

namespace gir::search {

struct EmitContext {
  Graph& gir;
  std::string regLevel;
  std::function<BufferId(TensorId)> dramBuffer;
  std::set<std::string>& names;  // buffer names in use
  // Whether a tensor is needed (stored): a split whose kernel exports one output writes only it.
  std::function<bool(TensorId)> live;
};

std::vector<std::optional<UnitProgram>> emitOp(EmitContext& ctx, const compute::Op& op, const IterationSpace& s, const UnitBoxes& boxes);

}  // namespace gir::search
