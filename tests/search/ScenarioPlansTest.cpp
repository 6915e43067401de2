// Acceptance of the planners on the bundled scenarios (cpu-host, the CI target): every plan of
// every planner lowers to a valid GIR-Graph (verifier, memory-model checker, reference evaluator),
// the GIR plan moves no more DRAM bytes than any baseline and never less than the minimal bytes.
// A baseline's lowered plan usually has its analytic kernel count or fewer (independent kernels
// share one GIR kernel); where a group's templates do not fuse into one kernel (two layernorm
// groups of the transformer block) the test warns instead of hiding it.
#include <catch2/catch.hpp>

#include "core/compute/Preprocess.h"
#include "core/onnx/OnnxImporter.h"
#include "search/ModelPlanner.h"
#include "tests/support/TestSupport.h"

using namespace gir;

namespace {

void checkScenario(const std::string& name) {
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  auto model = compute::importOnnxFile(test::sourcePath("scenarios/" + name + ".onnx"));
  INFO(name << (model ? "" : ": " + model.error().str()));
  REQUIRE(model);
  auto pre = compute::preprocess(*model, *hw);
  REQUIRE(pre);
  auto plans = search::planModel(*model, *pre, *hw, {});
  INFO((plans ? "" : plans.error().str()));
  REQUIRE(plans);
  for (const auto& sp : *plans) {
    INFO("subgraph " << sp.index);
    const auto* gir = sp.find("gir");
    REQUIRE(gir);
    CHECK(gir->lowered.cost.dramBytes >= sp.minimalBytes);
    for (const auto& r : sp.planners) {
      INFO(r.planner << ": " << r.problem);
      CHECK(r.valid);
      CHECK(gir->lowered.cost.dramBytes <= r.lowered.cost.dramBytes);
      CHECK(gir->lowered.cost.modelledUs <= r.lowered.cost.modelledUs * (1 + 1e-9));
      if (r.analytic && r.lowered.cost.kernels > r.analytic->totals.kernels)
        WARN(name << " subgraph " << sp.index << ": " << r.planner << " lowers to " << r.lowered.cost.kernels << " kernels, its plan has "
                  << r.analytic->totals.kernels);
    }
  }
}

}  // namespace

#define GIR_SCENARIO_TEST(NAME) \
  TEST_CASE("every planner's plan of " #NAME " is valid and the GIR plan moves the fewest bytes", "[search][scenarios]") { checkScenario(#NAME); }

GIR_SCENARIO_TEST(bert_bias_residual_layernorm)
GIR_SCENARIO_TEST(column_reduction)
GIR_SCENARIO_TEST(efficientnet)
GIR_SCENARIO_TEST(gelu)
GIR_SCENARIO_TEST(gpt2_decode_attention)
GIR_SCENARIO_TEST(layernorm)
GIR_SCENARIO_TEST(rmsnorm)
GIR_SCENARIO_TEST(row_reduction)
GIR_SCENARIO_TEST(shufflenet)
GIR_SCENARIO_TEST(silu)
GIR_SCENARIO_TEST(softmax)
GIR_SCENARIO_TEST(transformer_block)
GIR_SCENARIO_TEST(transpose_reduce)
