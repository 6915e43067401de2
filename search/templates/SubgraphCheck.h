// The numeric check of a lowered subgraph: the GIR-Graph's interpreter outputs against the reference
// evaluator run op by op on the same random inputs (constants keep their values).
#pragma once

#include <map>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"
#include "core/gir/Graph.h"
#include "core/gir/Interpreter.h"
#include "core/gir/Validity.h"
#include "search/templates/RowLowering.h"

namespace gir::search {

// The tolerance a plan's outputs must meet against the reference: float32 storage after every op
// and float reductions (a dot product with cancellation) against a double reference, relative to
// max(|expected|, 1e-3).
constexpr double kPlanTolerance = 1e-3;

// The seed of the reference inputs of every plan check (the planners', the searches', the explorer's).
constexpr uint64_t kPlanCheckSeed = 11;

struct SubgraphCheckResult {
  double maxRelativeError = 0;  // over every subgraph output
  size_t outputs = 0;
};

// Random values for the subgraph's inputs (|x| in [0.1, 2], random sign; constants keep theirs),
// evaluated op by op: the inputs and expected outputs by GIR buffer name. Every numeric check of a
// lowered subgraph (interpreter, CPU and GPU code) starts from these.
struct ReferenceData {
  TensorMap inputs, expected;
};
Expected<ReferenceData> referenceData(const compute::Graph& g, const compute::Subgraph& sub, const LoweredSubgraph& lowered, uint64_t seed);

// The same values by tensor, before any lowering names them: evaluated once per subgraph and seed,
// they serve the checks of every planner's lowering of it (the planner checks up to four).
using ReferenceValues = std::map<compute::TensorId, compute::TensorData>;
Expected<ReferenceValues> referenceValues(const compute::Graph& g, const compute::Subgraph& sub, uint64_t seed);
ReferenceData referenceData(const ReferenceValues& values, const LoweredSubgraph& lowered);

// `gir` may be the lowered graph or any rewrite of it (same buffer names for inputs and outputs).
Expected<SubgraphCheckResult> checkAgainstReference(const compute::Graph& g, const compute::Subgraph& sub,
                                                    const LoweredSubgraph& lowered, const Graph& gir, uint64_t seed);

// A plan's whole check in one checked run: the verifier, the memory-model checker (races, scopes,
// capacity) and the interpreter's outputs against the reference evaluator, all on the reference
// inputs of `seed`. `problem` is empty when the plan is valid.
struct PlanCheck {
  ValidityReport validity;
  double maxRelativeError = 0;
  std::string problem;
  std::string method;  // how it was checked when not element by element at full size (docs/scale.md)
  bool valid() const { return problem.empty(); }
};
// Element by element: the verifier, the interpreter with the memory-model checker, the reference
// evaluator. A graph too large to interpret (its buffers, register arrays of every unit included,
// hold more than kInterpretedElements) is checked symbolically instead, and `method` says so.
Expected<PlanCheck> checkPlan(const compute::Graph& g, const compute::Subgraph& sub, const LoweredSubgraph& lowered, const Graph& gir,
                              uint64_t seed);
// The same on reference values made beforehand (referenceValues of the lowered subgraph and a seed).
PlanCheck checkPlan(const ReferenceValues& reference, const LoweredSubgraph& lowered, const Graph& gir);
// The check of a graph too large to interpret (!interpretable): the verifier and the symbolic
// memory check, `method` saying so. Needs no reference values.
PlanCheck checkPlanSymbolically(const Graph& gir);

// The graph decided on its affine forms (docs/gir.md, "Symbolic checks"): the verifier and the
// memory-model checker's races, scopes and capacities, at a cost independent of units and extents.
// Returns the problem (empty: none). `inconclusive` is set when the integer-set library gave up
// (its operation budget, IslAccess.h): the verifier's verdict then stands alone, and callers say so.
std::string symbolicProblem(const Graph& gir, std::string& inconclusive);

}  // namespace gir::search
