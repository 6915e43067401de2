// Partial coverage (issue #18, docs/plans.md): a subgraph that some planner cannot lower is listed
// with the reason, and the model's other subgraphs are still planned and checked.
// tests/data/partial/partial_coverage.onnx (make_partial_model.py) on cpu-host: subgraph 0 is GIR but
// the eager plan has no template for its lone full reduction (not compared), subgraph 1 is a lone
// full reduction (not GIR), subgraph 2 is Relu -> Sigmoid (covered).
#include <catch2/catch.hpp>

#include "core/compute/Preprocess.h"
#include "core/onnx/OnnxImporter.h"
#include "search/ModelPlanner.h"
#include "tests/baselines/BaselineTestUtil.h"
#include "tests/support/TestSupport.h"

using namespace gir;

TEST_CASE("subgraphs that do not lower are listed with their real reason and the others still plan", "[search][partial]") {
  auto hw = test::valueOrFail(loadHardwareByName("cpu-host"));
  auto model = test::valueOrFail(compute::importOnnxFile(test::sourcePath("tests/data/partial/partial_coverage.onnx")));
  auto pre = test::valueOrFail(compute::preprocess(model, hw));
  REQUIRE(pre.subgraphs.size() == 3);
  auto plans = test::valueOrFail(search::planModel(model, pre, hw, {}));
  REQUIRE(plans.size() == 3);
  CHECK(search::coveredSubgraphs(plans) == 1);
  // The size is the limit, and the messages say so (they used to read "no GIR template for this op").
  auto checkSaysSize = [](const std::string& why) {
    CHECK_THAT(why, Catch::Contains("64rx8192r") && Catch::Contains("register budget of 6144") && Catch::Contains("smallest box holds 8192"));
  };

  const auto& notCompared = plans[0];
  INFO(notCompared.notCovered);
  CHECK(notCompared.failedPlanner == "eager");
  CHECK(notCompared.isGir());
  CHECK_THAT(notCompared.notCovered, Catch::StartsWith("eager plan: ") && Catch::Contains("ReduceSum_1"));
  checkSaysSize(notCompared.notCovered);
  REQUIRE(notCompared.planners.size() == 1);  // the GIR plan alone, checked
  CHECK(notCompared.planners[0].planner == "gir");
  CHECK(notCompared.planners[0].valid);
  CHECK(search::firstNotCovered(plans) == "subgraph 0: " + notCompared.notCovered);

  const auto& notGir = plans[1];
  INFO(notGir.notCovered);
  CHECK(notGir.failedPlanner == "gir");
  CHECK_FALSE(notGir.isGir());
  CHECK(notGir.planners.empty());
  CHECK(notGir.minimalBytes == 64 * 8192 * 4 + 4);  // u read, t written
  CHECK_THAT(notGir.notCovered, Catch::StartsWith("no GIR plan: ") && Catch::Contains("ReduceSum_3"));
  checkSaysSize(notGir.notCovered);

  const auto& covered = plans[2];
  CHECK(covered.notCovered.empty());
  CHECK(covered.isGir());
  REQUIRE(covered.planners.size() == 4);
  for (const auto& r : covered.planners) {
    INFO(r.planner << ": " << r.problem);
    CHECK(r.valid);
    CHECK(r.lowered.cost.dramBytes >= covered.minimalBytes);
  }
  CHECK(covered.find("gir")->lowered.cost.dramBytes == covered.minimalBytes);  // Relu -> Sigmoid fuses into one pass
}

TEST_CASE("planSubgraph still fails on a subgraph that a planner asked for cannot lower", "[search][partial]") {
  auto hw = test::valueOrFail(loadHardwareByName("cpu-host"));
  auto model = test::valueOrFail(compute::importOnnxFile(test::sourcePath("tests/data/partial/partial_coverage.onnx")));
  auto pre = test::valueOrFail(compute::preprocess(model, hw));
  auto one = search::planSubgraph(model, pre.subgraphs[0], 0, hw, {});
  REQUIRE_FALSE(one);
  CHECK_THAT(one.error().message, Catch::StartsWith("eager plan: "));
  search::PlanRequest girOnly;
  girOnly.planners = {"gir"};
  CHECK(search::planSubgraph(model, pre.subgraphs[0], 0, hw, girOnly));
}

TEST_CASE("an unknown planner is still an error of the whole model, not a subgraph's reason", "[search][partial]") {
  auto hw = test::valueOrFail(loadHardwareByName("cpu-host"));
  auto model = test::valueOrFail(compute::importOnnxFile(test::sourcePath("tests/data/partial/partial_coverage.onnx")));
  auto pre = test::valueOrFail(compute::preprocess(model, hw));
  search::PlanRequest request;
  request.planners = {"gir", "halide"};
  auto plans = search::planModel(model, pre, hw, request);
  REQUIRE_FALSE(plans);
  CHECK_THAT(plans.error().message, Catch::Contains("unknown planner 'halide'"));
}
