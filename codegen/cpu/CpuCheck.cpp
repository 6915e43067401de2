// Generated code against the interpreter and the reference evaluator.
#include "codegen/cpu/CpuCheck.h"

#include <random>

#include "core/compute/ReferenceEvaluator.h"

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

// The same random values as search/templates/SubgraphCheck (|x| in [0.1, 2], random sign;
// constants keep their values), evaluated op by op.
Expected<ReferenceCase> referenceCase(const compute::Graph& model, const compute::Subgraph& sub, const search::LoweredSubgraph& lowered,
                                      uint64_t seed) {
  using compute::TensorData;
  using compute::TensorId;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mag(0.1, 2.0);
  std::map<TensorId, TensorData> values;
  for (TensorId t : sub.inputs) {
    const auto& tensor = model.tensor(t);
    TensorData d{tensor.dtype, tensor.dims, {}};
    if (tensor.constant) d.values = *tensor.constant;
    else
      for (int64_t i = 0; i < compute::numElements(tensor.dims); ++i)
        d.values.push_back(compute::roundToDType(tensor.dtype, mag(rng) * (rng() % 2 ? -1 : 1)));
    values[t] = std::move(d);
  }
  for (compute::OpId id : sub.ops) {
    const auto& op = model.op(id);
    std::vector<const TensorData*> ins;
    for (TensorId t : op.inputs) {
      auto it = values.find(t);
      if (it == values.end()) return makeError("op '" + op.name + "' reads a tensor the subgraph does not provide");
      ins.push_back(&it->second);
    }
    auto outs = compute::evalOp(model, op, ins);
    if (!outs) return outs.takeError();
    for (size_t i = 0; i < op.outputs.size(); ++i) values[op.outputs[i]] = std::move((*outs)[i]);
  }
  ReferenceCase rc;
  for (const auto& [name, t] : lowered.inputBuffers) rc.inputs[name] = std::vector<float>(values[t].values.begin(), values[t].values.end());
  for (const auto& [name, t] : lowered.outputBuffers) rc.expected[name] = std::vector<float>(values[t].values.begin(), values[t].values.end());
  return rc;
}

Expected<NumericCheck> checkAgainstReference(const ReferenceCase& ref, CompiledKernel& kernel) {
  auto got = kernel.run(ref.inputs);
  if (!got) return got.takeError();
  return compareOutputs(*got, ref.expected);
}

}  // namespace gir::codegen::cpu
