// Helpers of the baseline-planner tests: graph inputs, planning a whole graph, kernel facts.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/compute/GraphBuilder.h"
#include "search/baselines/Planners.h"

namespace gir::test {

inline compute::TensorId addInput(compute::Graph& g, const std::string& name, compute::Dims dims) {
  compute::TensorId t = g.addTensor(name, compute::DType::F32, std::move(dims));
  g.inputs.push_back(t);
  return t;
}

template <typename T>
T valueOrFail(Expected<T> e) {
  if (!e) FAIL(e.error().str());
  return std::move(*e);
}

inline search::Plan planOrFail(const std::string& planner, const search::PlanProblem& p) {
  return valueOrFail(search::runBaselinePlanner(planner, p));
}

inline std::vector<size_t> kernelSizes(const search::Plan& plan) {
  std::vector<size_t> sizes;
  for (const auto& k : plan.kernels) sizes.push_back(k.instances.size());
  return sizes;
}

}  // namespace gir::test
