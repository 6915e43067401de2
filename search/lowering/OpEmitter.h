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
  // A DRAM scratch buffer of `elements` for partial results inside one op (a split reduction's
  // partials); the lowering joins its stores to its loads with a device sync like a tensor's.
  std::function<BufferId(const std::string& name, int64_t elements)> scratch;
};

// The op's programs in phases, each phase a program per unit (nullopt: the unit does nothing), to
// be materialized in order. Most ops have one phase; a convolution has two, because its edge bands
// prepare their windows differently while every band's taps are the same: separate phases let the
// taps become one GIR node per tap for all units instead of one per kind of band.
// `base` with characters other than letters, digits and '_' replaced, made unique among `names`
// (and added to them): buffer names of the GIR text format.
std::string uniqueBufferName(std::string base, std::set<std::string>& names);

std::vector<PhasePrograms> emitOp(EmitContext& ctx, const compute::Op& op, const IterationSpace& s, const UnitBoxes& boxes);

}  // namespace gir::search
