// Row templates on the bundled row-wise scenarios: the per-op GIR-Graphs merged with device syncs
// are valid and match the reference evaluator; the greedy optimizer (checked) then fuses each
// subgraph into one kernel without changing its outputs.
#include <catch2/catch.hpp>

#include "core/compute/Preprocess.h"
#include "core/gir/Validity.h"
#include "core/onnx/OnnxImporter.h"
#include "rewrite/GreedyOptimizer.h"
#include "search/templates/RowLowering.h"
#include "search/templates/SubgraphCheck.h"
#include "tests/support/TestSupport.h"

using namespace gir;

TEST_CASE("row templates + merge + greedy on the row-wise scenarios", "[search][templates]") {
  auto hw = loadHardwareByName("nvidia-h100");
  REQUIRE(hw);
  // DRAM bytes are net per kernel (rewrite/Cost.h): gamma/beta read by every unit count once, so
  // every one of these reaches the minimal bytes in one kernel.
  for (const char* name : {"softmax", "silu", "gelu", "row_reduction", "layernorm", "rmsnorm"}) {
    INFO(name);
    auto model = compute::importOnnxFile(test::sourcePath(std::string("scenarios/") + name + ".onnx"));
    INFO((model ? "" : model.error().str()));
    REQUIRE(model);
    auto pre = compute::preprocess(*model, *hw);
    REQUIRE(pre);
    REQUIRE_FALSE(pre->subgraphs.empty());
    for (const auto& sub : pre->subgraphs) {
      auto lowered = search::lowerRowwise(*model, sub, *hw, {});
      INFO((lowered ? "" : lowered.error().str()));
      REQUIRE(lowered);
      const Graph& per = lowered->gir;
      ValidityReport v = checkValidity(per, randomInputs(per, 1));
      INFO(v.str());
      REQUIRE(v.valid());
      auto before = search::checkAgainstReference(*model, sub, *lowered, per, 7);
      REQUIRE(before);
      CHECK(before->maxRelativeError <= 1e-4);

      Stepper st(per, *hw, /*checked=*/true);
      GreedyResult r = runGreedy(st);
      INFO(r.failure);
      REQUIRE(r.stop == StopReason::Converged);
      auto after = search::checkAgainstReference(*model, sub, *lowered, st.graph(), 7);
      REQUIRE(after);
      CHECK(after->maxRelativeError <= 1e-4);
      CHECK(st.cost().kernels == 1);
      CHECK(st.cost().dramBytes <= computeCost(per).dramBytes);
      CHECK(st.cost().dramBytes == sub.minBytes);
      CHECK(st.cost().dramAccessBytes >= st.cost().dramBytes);
    }
  }
}
