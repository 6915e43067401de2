// Shared by the template tests: the whole graph as one subgraph, and the check every template
// instance must pass (lowered: verified, memory-checked and equal to the reference evaluator; then
// optimized by the greedy optimizer and checked again).
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/compute/GraphBuilder.h"
#include "core/gir/Interpreter.h"
#include "core/gir/Validity.h"
#include "search/GirSearch.h"
#include "search/lowering/SubgraphLowering.h"
#include "search/templates/SubgraphCheck.h"
#include "tests/baselines/BaselineTestUtil.h"

namespace gir::test {

// The whole graph as one subgraph (no library-op split), so every op gets a template.
inline compute::Subgraph wholeGraph(const compute::Graph& g) {
  compute::Subgraph s;
  std::set<compute::TensorId> produced;
  for (const auto& op : g.ops) {
    s.ops.push_back(op.id);
    for (compute::TensorId t : op.inputs)
      if (!produced.count(t) && std::find(s.inputs.begin(), s.inputs.end(), t) == s.inputs.end()) s.inputs.push_back(t);
    for (compute::TensorId t : op.outputs) produced.insert(t);
  }
  s.outputs = g.outputs;
  return s;
}

// Syncs of one scope in a GIR graph.
// One matrix product a x b (numpy batching) over graph inputs: the contraction tests' graph.
inline compute::Graph matmulGraph(const std::string& name, compute::Dims a, compute::Dims b) {
  compute::Graph g;
  g.name = name;
  compute::GraphBuilder gb(g);
  g.outputs = {valueOrFail(gb.matmul(addInput(g, "a", std::move(a)), addInput(g, "b", std::move(b))))};
  return g;
}

inline int syncs(const Graph& g, Scope scope) {
  int n = 0;
  for (const auto& node : g.nodes())
    if (auto* s = std::get_if<SyncPayload>(&node.payload); s && s->scope == scope) ++n;
  return n;
}

inline std::string describe(const std::vector<search::OpTemplate>& choice) {
  std::string s;
  for (const auto& t : choice) s += t.str() + " ";
  return s;
}

// The choice lowered and then optimized, each checked; the outputs within `tolerance` (relative)
// of the reference. Returns the optimized lowering.
inline std::pair<search::LoweredSubgraph, Graph> checkLoweredAndOptimized(const compute::Graph& g, const compute::Subgraph& sub,
                                                                          const HardwareDesc& hw,
                                                                          const std::vector<search::OpTemplate>& choice,
                                                                          double tolerance = 1e-4) {
  INFO(g.name << ": " << describe(choice));
  auto lowered = valueOrFail(search::lowerSubgraph(g, sub, hw, choice));
  ValidityReport v = checkValidity(lowered.gir, randomInputs(lowered.gir, 3));
  INFO(v.str());
  REQUIRE(v.valid());
  CHECK(valueOrFail(search::checkAgainstReference(g, sub, lowered, lowered.gir, 5)).maxRelativeError <= tolerance);
  auto opt = valueOrFail(search::lowerAndOptimize(g, sub, hw, choice, {}));
  ValidityReport v2 = checkValidity(opt.second, randomInputs(opt.second, 3));
  INFO(v2.str());
  REQUIRE(v2.valid());
  CHECK(valueOrFail(search::checkAgainstReference(g, sub, opt.first, opt.second, 5)).maxRelativeError <= tolerance);
  return opt;
}

// Every template each op offers, the other ops taking the first template that applies after it
// (small graphs only), each lowered, checked, optimized, checked. Returns how many were lowered.
inline int checkAllTemplates(const compute::Graph& g, const HardwareDesc& hw) {
  compute::Subgraph sub = wholeGraph(g);
  int64_t budget = search::boxElementBudget(hw);
  std::vector<std::vector<search::OpTemplate>> options;
  for (size_t i = 0; i < sub.ops.size(); ++i) options.push_back(search::templateOptions(g, sub, i, budget));
  int lowered = 0;
  for (size_t i = 0; i < options.size(); ++i)
    for (const auto& t : options[i]) {
      auto state = valueOrFail(search::TemplateState::make(g, sub, budget));
      bool ok = true;
      for (size_t j = 0; j < options.size() && ok; ++j) {
        if (j == i) { ok = static_cast<bool>(state.push(t)); continue; }
        ok = false;
        for (const auto& o : options[j])
          if (state.push(o)) { ok = true; break; }
      }
      if (!ok || !search::lowerSubgraph(g, sub, hw, state.choice())) continue;  // a follow that does not apply to this choice
      ++lowered;
      checkLoweredAndOptimized(g, sub, hw, state.choice());
    }
  CHECK(lowered > 0);
  return lowered;
}
inline int checkAllTemplates(const compute::Graph& g, const std::string& target = "nvidia-h100") {
  return checkAllTemplates(g, valueOrFail(loadHardwareByName(target)));
}

// `target` with its unit-scope level cut to `bytes`: a register budget (boxElementBudget) small
// enough that tiny test shapes need bands, chunks and cuts.
inline HardwareDesc smallRegisters(const std::string& target, int64_t bytes) {
  HardwareDesc hw = valueOrFail(loadHardwareByName(target));
  for (auto& l : hw.levels)
    if (l.scope == Scope::Unit) l.capacityBytes = bytes;
  return hw;
}

}  // namespace gir::test
