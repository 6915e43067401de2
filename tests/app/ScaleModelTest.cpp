// The app on a DRAM-scale model (docs/scale.md): LayerNorm over 16384x2048 (128 MB) opens, its
// subgraph's GIR-Graph is lowered, laid out and drawn with as many nodes as the bundled 64x768
// LayerNorm's (the unit count is a number, slices stay affine in u; both hold one row per unit, as
// a template with two rows per unit adds the broadcasts of gamma and beta over them), and greedy
// runs to one kernel at the minimal bytes.
#include <catch2/catch.hpp>

#include "app/ModelTab.h"
#include "app/Session.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

namespace {

// Opens `model` and its subgraph 0; the GIR-Graph's live node count.
size_t openSubgraph(MainWindow& w, const std::string& model) {
  REQUIRE(w.openPath(QString::fromStdString(test::sourcePath(model))));
  REQUIRE(test::waitForLayout(w.modelTab()->canvas()));
  test::openSubgraph(&w, 0);
  REQUIRE(w.session().hasGir());
  REQUIRE(test::waitForLayout(w.girCanvas(), 120000));
  return w.session().graph().liveNodeCount();
}

}  // namespace

TEST_CASE("app: LayerNorm 16384x2048 opens with the node count of LayerNorm 64x768", "[app][scale]") {
  auto w = test::makeWindow();
  size_t small = openSubgraph(*w, "scenarios/layernorm.onnx");
  int64_t smallUnits = w->session().graph().units;
  size_t large = openSubgraph(*w, "scenarios/scale/layernorm_16384x2048.onnx");
  CHECK(large == small);
  CHECK(w->session().graph().units > smallUnits);
  test::saveScreenshot(w.get(), "scale_layernorm_16384x2048_gir");
  REQUIRE(test::runGreedyAndWait(w.get()));
  CHECK(kernelCount(w->session().graph()) == 1);
  CHECK(w->session().cost().dramBytes == w->session().preprocessed().subgraphs[0].minBytes);
  REQUIRE(test::waitForLayout(w->girCanvas(), 120000));  // the canvas shows the greedy result, not the graph before it
  test::saveScreenshot(w.get(), "scale_layernorm_16384x2048_greedy");
}
