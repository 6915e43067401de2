// The numeric checks of a compiled CPU kernel: against the GIR interpreter on random inputs, and for
// a lowered subgraph against the computation graph's reference evaluator through the lowered
// subgraph's buffer <-> tensor maps (docs/import.md, "Reference evaluator": every backend is checked
// by the same numerics).
#pragma once

#include <string>

#include "codegen/cpu/CpuLauncher.h"
#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"
#include "core/gir/Graph.h"
#include "core/gir/Interpreter.h"
#include "search/templates/LoweredSubgraph.h"

namespace gir::codegen::cpu {

struct NumericCheck {
  bool close = false;           // allClose(rtol, atol) held on every output element
  double maxRelativeError = 0;  // largest |a - b| / max(|b|, 1e-3)
  std::string firstMismatch;    // when !close: output, element, both values
};

constexpr double kCheckRtol = 1e-4;
constexpr double kCheckAtol = 1e-5;

// Compares two output maps with the tolerances above.
NumericCheck compareOutputs(const TensorMap& actual, const TensorMap& expected);

// The kernel against the interpreter of the graph it was built from, on randomInputs(g, seed).
Expected<NumericCheck> checkAgainstInterpreter(const Graph& g, CompiledKernel& kernel, uint64_t seed);

// Inputs and expected outputs of a lowered subgraph, by GIR buffer name, from the reference evaluator.
struct ReferenceCase {
  TensorMap inputs, expected;
};
Expected<ReferenceCase> referenceCase(const compute::Graph& model, const compute::Subgraph& sub, const search::LoweredSubgraph& lowered,
                                      uint64_t seed);

// The kernel against the reference evaluator.
Expected<NumericCheck> checkAgainstReference(const ReferenceCase& ref, CompiledKernel& kernel);

}  // namespace gir::codegen::cpu
