// The search stops at the first candidate on the DRAM floor; when that candidate then fails its
// check (here: four live copies of a 2,048-element box overflow a 32 KiB unit level, which the
// register budget of three copies does not see), the search must go on to the next candidate
// rather than report that no plan is valid.
#include <catch2/catch.hpp>

#include "core/compute/GraphBuilder.h"
#include "core/compute/Preprocess.h"
#include "search/GirSearch.h"
#include "search/templates/SubgraphCheck.h"
#include "tests/baselines/BaselineTestUtil.h"

using gir::ElementwiseOp;
using gir::loadHardwareByName;
using gir::test::addInput;
using gir::test::valueOrFail;
namespace search = gir::search;
using namespace gir::compute;

TEST_CASE("a search stopped at the DRAM floor by a candidate that fails its check resumes", "[search][resume]") {
  auto hw = valueOrFail(loadHardwareByName("cpu-host"));
  for (auto& level : hw.levels)
    if (level.name == "local") level.capacityBytes = 32 * 1024;
  Graph g;
  g.name = "four_live";
  GraphBuilder b(g);
  TensorId x = addInput(g, "x", {2, 2048});
  // exp, sigmoid and tanh of x are all live with x when the products start.
  TensorId a = valueOrFail(b.unary(ElementwiseOp::Exp, x));
  TensorId s = valueOrFail(b.unary(ElementwiseOp::Sigmoid, x));
  TensorId t = valueOrFail(b.unary(ElementwiseOp::Tanh, x));
  TensorId p = valueOrFail(b.binary(ElementwiseOp::Mul, valueOrFail(b.binary(ElementwiseOp::Mul, a, s)), t));
  g.outputs = {valueOrFail(b.binary(ElementwiseOp::Add, p, x))};
  auto pre = valueOrFail(preprocess(g, hw));
  REQUIRE(pre.subgraphs.size() == 1);
  const Subgraph& sub = pre.subgraphs[0];

  auto found = valueOrFail(search::searchTemplates(g, sub, hw));
  REQUIRE(found.candidates.size() >= 2);
  // The cheapest candidate (one unit per row) is on the floor but over the unit level's capacity ...
  const auto& first = found.candidates.front();
  CHECK(first.cost.kernels == 1);
  CHECK(first.cost.dramBytes == sub.minBytes);
  auto lowered = valueOrFail(search::lowerAndOptimize(g, sub, hw, first.choice, {}));
  auto check = valueOrFail(search::checkPlan(g, sub, lowered.first, lowered.second, 11));
  CHECK_FALSE(check.valid());
  CHECK(check.problem.find("capacity") != std::string::npos);
  // ... so the search took the next one on the floor: valid, one kernel, minimal bytes, and found
  // without costing every combination.
  CHECK(found.choice != first.choice);
  CHECK(found.cost.kernels == 1);
  CHECK(found.cost.dramBytes == sub.minBytes);
  CHECK(valueOrFail(search::checkPlan(g, sub, found.lowered, found.optimized, 11)).valid());
  CHECK(found.stats.explored < 16);
}
