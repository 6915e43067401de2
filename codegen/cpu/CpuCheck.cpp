// Generated code against the interpreter and the reference evaluator.
#include "codegen/cpu/CpuCheck.h"

#include <random>

#include "core/compute/ReferenceEvaluator.h"
#include "search/templates/SubgraphCheck.h"

namespace gir::codegen::cpu {

NumericCheck compareOutputs(const TensorMap& actual, const TensorMap& expected) {
  NumericCheck c;
  c.close = allClose(actual, expected, kCheckRtol, kCheckAtol, &c.firstMismatch);
  c.maxRelativeError = maxRelativeError(actual, expected, 1e-3);
  return c;
}

Expected<NumericCheck> checkAgainstInterpreter(const Graph& g, CompiledKernel& kernel, uint64_t seed) {
  TensorMap inputs = randomInputs(g, seed);
  auto want = interpret(g, inputs);
  if (!want) return want.takeError();
  auto got = kernel.run(inputs);
  if (!got) return got.takeError();
  return compareOutputs(*got, *want);
}

// The values every numeric check of a lowered subgraph uses (search/templates/SubgraphCheck).
Expected<ReferenceCase> referenceCase(const compute::Graph& model, const compute::Subgraph& sub, const search::LoweredSubgraph& lowered,
                                      uint64_t seed) {
  auto data = search::referenceData(model, sub, lowered, seed);
  if (!data) return data.takeError();
  return ReferenceCase{std::move(data->inputs), std::move(data->expected)};
}

Expected<NumericCheck> checkAgainstReference(const ReferenceCase& ref, CompiledKernel& kernel) {
  auto got = kernel.run(ref.inputs);
  if (!got) return got.takeError();
  return compareOutputs(*got, ref.expected);
}

}  // namespace gir::codegen::cpu
