// The Model view and the plan explorer's numbers: one node per op, subgraphs as highlighted clusters,
// library ops with their decision; planner totals equal to the planners' own sums; what-if lines.
#include <catch2/catch.hpp>

#include "core/onnx/OnnxImporter.h"
#include "search/baselines/Planners.h"
#include "tests/support/TestSupport.h"
#include "viz/ModelView.h"
#include "viz/PlanSummary.h"

using namespace gir;
using namespace gir::viz;

TEST_CASE("model view of the bundled scenarios", "[viz]") {
  auto hw = loadHardwareByName("nvidia-h100");
  REQUIRE(hw.ok());
  for (const char* name : {"shufflenet.onnx", "layernorm.onnx", "transformer_block.onnx"}) {
    auto g = compute::importOnnxFile(test::sourcePath(std::string("scenarios/") + name));
    REQUIRE(g.ok());
    auto pre = compute::preprocess(*g, *hw);
    REQUIRE(pre.ok());
    VizGraph v = modelToViz(*g, *pre);
    INFO(name);
    CHECK(v.nodes.size() == g->ops.size());
    CHECK(v.clusters.size() == pre->subgraphs.size());
    CHECK(v.countKind(ItemKind::LibraryOp) == pre->library.size());
    for (const auto& d : pre->library) {
      const VizNode& n = v.nodes[compute::index(d.op)];
      CHECK(n.label.find(d.computeBound ? "library" : "GIR") != std::string::npos);
    }
    for (size_t s = 0; s < pre->subgraphs.size(); ++s)
      for (compute::OpId op : pre->subgraphs[s].ops) CHECK(v.nodes[compute::index(op)].cluster == static_cast<int>(s));
  }
}

TEST_CASE("plan totals are the planners' sums, modelled time follows bandwidth and launch cost", "[viz]") {
  auto hw = loadHardwareByName("nvidia-h100");
  REQUIRE(hw.ok());
  auto g = compute::importOnnxFile(test::sourcePath("scenarios/shufflenet.onnx"));
  REQUIRE(g.ok());
  auto pre = compute::preprocess(*g, *hw);
  REQUIRE(pre.ok());
  auto plans = planModel(*g, *pre, *hw);
  REQUIRE(plans.ok());
  REQUIRE(plans->planners.size() == 3);
  for (const PlannerTotals& t : plans->planners) {
    int64_t kernels = 0, bytes = 0;
    for (const auto& sub : pre->subgraphs) {
      auto p = search::makeProblem(*g, sub, "s");
      REQUIRE(p.ok());
      auto plan = search::runBaselinePlanner(t.planner, *p);
      REQUIRE(plan.ok());
      kernels += plan->totals.kernels;
      bytes += plan->totals.dramBytes();
    }
    CHECK(t.kernels == kernels);
    CHECK(t.dramBytes == bytes);
    CHECK(t.dramBytes >= plans->minimalBytes);
    CHECK(t.modelledUs == Approx(bytes / (hw->dramBandwidthGBs() * 1e3) + kernels * hw->launchCostUs));
  }
  // Eager launches at least as many kernels as the fusing planners.
  CHECK(plans->planners[0].kernels >= plans->planners[1].kernels);
  // What-if: half the DRAM bandwidth doubles the byte term and moves the ridge point.
  HardwareDesc slow = *hw;
  for (auto& l : slow.levels)
    if (l.scope == Scope::Device) l.bandwidthGBs /= 2;
  auto slowPre = compute::preprocess(*g, slow);
  REQUIRE(slowPre.ok());
  auto slowPlans = planModel(*g, *slowPre, slow);
  REQUIRE(slowPlans.ok());
  auto lines = whatIfDifferences(*g, *pre, *plans, *slowPre, *slowPlans);
  bool ridge = false, modelled = false;
  for (const auto& l : lines) {
    ridge |= l.find("ridge point") != std::string::npos;
    modelled |= l.find("modelled") != std::string::npos;
  }
  CHECK(ridge);
  CHECK(modelled);
  CHECK(whatIfDifferences(*g, *pre, *plans, *pre, *plans).front().find("no difference") != std::string::npos);
}
