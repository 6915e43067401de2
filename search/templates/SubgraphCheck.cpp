// Reference values for a subgraph: evaluate its ops in order from random (or constant) inputs.
#include "search/templates/SubgraphCheck.h"

#include <cmath>
#include <map>
#include <random>

#include "core/compute/ReferenceEvaluator.h"
#include "core/gir/Interpreter.h"
#include "core/gir/SymbolicCheck.h"
#include "core/gir/Verifier.h"

namespace gir::search {

using compute::TensorData;
using compute::TensorId;

Expected<ReferenceValues> referenceValues(const compute::Graph& g, const compute::Subgraph& sub, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mag(0.1, 2.0);
  ReferenceValues values;
  for (TensorId t : sub.inputs) {
    const auto& tensor = g.tensor(t);
    TensorData d{tensor.dtype, tensor.dims, {}};
    if (tensor.constant) d.values = *tensor.constant;
    else
      for (int64_t i = 0; i < compute::numElements(tensor.dims); ++i)
        d.values.push_back(compute::roundToDType(tensor.dtype, mag(rng) * (rng() % 2 ? -1 : 1)));
    values[t] = std::move(d);
  }
  for (compute::OpId id : sub.ops) {
    const auto& op = g.op(id);
    std::vector<const TensorData*> ins;
    for (TensorId t : op.inputs) {
      auto it = values.find(t);
      if (it == values.end()) return makeError("op '" + op.name + "' reads a tensor the subgraph does not provide");
      ins.push_back(&it->second);
    }
    auto outs = compute::evalOp(g, op, ins);
    if (!outs) return outs.takeError();
    for (size_t i = 0; i < op.outputs.size(); ++i) values[op.outputs[i]] = std::move((*outs)[i]);
  }
  return values;
}

ReferenceData referenceData(const ReferenceValues& values, const LoweredSubgraph& lowered) {
  auto floats = [&](TensorId t) {
    auto it = values.find(t);
    return it == values.end() ? std::vector<float>{} : std::vector<float>(it->second.values.begin(), it->second.values.end());
  };
  ReferenceData out;
  for (const auto& [name, t] : lowered.inputBuffers) out.inputs[name] = floats(t);
  for (const auto& [name, t] : lowered.outputBuffers) out.expected[name] = floats(t);
  return out;
}

Expected<ReferenceData> referenceData(const compute::Graph& g, const compute::Subgraph& sub, const LoweredSubgraph& lowered, uint64_t seed) {
  auto values = referenceValues(g, sub, seed);
  if (!values) return values.takeError();
  return referenceData(*values, lowered);
}

Expected<SubgraphCheckResult> checkAgainstReference(const compute::Graph& g, const compute::Subgraph& sub,
                                                    const LoweredSubgraph& lowered, const Graph& gir, uint64_t seed) {
  auto data = referenceData(g, sub, lowered, seed);
  if (!data) return data.takeError();
  auto run = interpret(gir, data->inputs);
  if (!run) return run.takeError();
  return SubgraphCheckResult{maxRelativeError(*run, data->expected, 1e-3), data->expected.size()};
}

PlanCheck checkPlanSymbolically(const Graph& gir) {
  PlanCheck out;
  std::string inconclusive;
  out.problem = symbolicProblem(gir, inconclusive);
  out.method = inconclusive.empty() ? "symbolic (too large to run element by element)"
                                    : "verified only (too large to run element by element; the symbolic memory check was inconclusive: " +
                                          inconclusive + ")";
  return out;
}

Expected<PlanCheck> checkPlan(const compute::Graph& g, const compute::Subgraph& sub, const LoweredSubgraph& lowered, const Graph& gir,
                              uint64_t seed) {
  if (!interpretable(gir)) return checkPlanSymbolically(gir);
  auto values = referenceValues(g, sub, seed);
  if (!values) return values.takeError();
  return checkPlan(*values, lowered, gir);
}

PlanCheck checkPlan(const ReferenceValues& reference, const LoweredSubgraph& lowered, const Graph& gir) {
  PlanCheck out;
  if (!interpretable(gir)) return checkPlanSymbolically(gir);
  ReferenceData data = referenceData(reference, lowered);
  out.validity = checkValidity(gir, data.inputs);
  if (!out.validity.valid()) {
    out.problem = out.validity.problem();
    return out;
  }
  out.maxRelativeError = maxRelativeError(out.validity.outputs, data.expected, 1e-3);
  if (out.maxRelativeError > kPlanTolerance)
    out.problem = "outputs differ from the reference evaluator (max relative error " + std::to_string(out.maxRelativeError) + ")";
  return out;
}

std::string symbolicProblem(const Graph& gir, std::string& inconclusive) {
  if (auto st = verifyGraph(gir); !st) return "verify: " + st.error().str();
  auto report = checkMemoryModelSymbolic(gir);
  if (!report) {
    inconclusive = report.error().message;
    return "";
  }
  if (!report->clean()) return "memory model (symbolic): " + report->summary();
  return "";
}

}  // namespace gir::search
