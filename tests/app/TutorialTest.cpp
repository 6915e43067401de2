// The pictures of docs/tutorial.md, taken from the real window so they stay current: the ShuffleNet
// and LayerNorm scenarios imported, the ShuffleNet fragment's GIR-Graph with a sync inspected, each
// greedy step shown as a diff, the LayerNorm subgraph before and after greedy, the plan comparison,
// a measurement. Each picture is also a check of what it shows.
#include <catch2/catch.hpp>

#include <QTextBrowser>

#include "app/Inspector.h"
#include "app/MeasureTab.h"
#include "app/PlanTab.h"
#include "app/ModelTab.h"
#include "app/Session.h"
#include "app/StepperPanel.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

TEST_CASE("tutorial: ShuffleNet, import to one kernel", "[app][tutorial]") {
  auto w = test::makeWindow();
  test::chooseTarget(w.get(), "nvidia-h100");  // the tour's first step
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/shufflenet.onnx"))));
  REQUIRE(test::waitForLayout(w->modelTab()->canvas()));
  CHECK(w->session().preprocessed().subgraphs.size() > 0);
  test::saveScreenshot(w.get(), "tutorial_01_shufflenet_model");
  QSignalSpy lowered(w->planTab(), &PlanTab::loweredPlansReady);
  REQUIRE((lowered.count() > 0 || lowered.wait(120000)));
  REQUIRE(w->planTab()->loweredPlans().has_value());
  // docs/tutorial.md, section 1: eager 3 kernels at 3.00x the minimal bytes, XLA- and TVM-like 3 kernels
  // above the minimum, the GIR planner one kernel at exactly 1,455,104 bytes.
  const viz::ModelPlans& plans = *w->planTab()->loweredPlans();
  CHECK(plans.minimalBytes == 1455104);
  for (const auto& t : plans.planners) {
    INFO(t.planner);
    CHECK(t.kernels == (t.planner == "gir" ? 1 : 3));
    CHECK(t.dramBytes == (t.planner == "gir" ? 1455104 : 3 * 1455104));
  }
  w->tabs()->setCurrentWidget(w->planTab());
  test::saveScreenshot(w.get(), "tutorial_02_shufflenet_plans");
  // The ShuffleNet subgraph opens from the Model tab through the GIR planner's template search.
  test::openSubgraph(w.get(), 0);
  REQUIRE(w->session().hasGir());
  REQUIRE(test::waitForLayout(w->girCanvas()));
  REQUIRE(test::runGreedyAndWait(w.get()));
  CHECK(kernelCount(w->session().graph()) == 1);
  CHECK(w->session().cost().dramBytes == w->session().preprocessed().subgraphs[0].minBytes);

  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/golden/gir/shufflenet_source.gir"))));
  REQUIRE(test::waitForLayout(w->girCanvas()));
  const Graph& g = w->session().graph();
  uint32_t sync = 0;
  while (sync < g.nodes().size() && !g.nodes()[sync].isSync()) ++sync;
  REQUIRE(sync < g.nodes().size());
  w->girCanvas()->selectGraphNode(sync);
  CHECK(w->inspector()->toPlainText().contains("scope"));
  CHECK(w->inspector()->toPlainText().contains("device"));
  test::saveScreenshot(w.get(), "tutorial_03_shufflenet_gir");

  REQUIRE(test::runGreedyAndWait(w.get()));
  size_t steps = w->session().stepper().history().size();
  REQUIRE(steps == 6);
  for (size_t k = 1; k <= steps; ++k) {
    w->stepper()->jumpTo(static_cast<int>(k));
    REQUIRE(test::waitForLayout(w->girCanvas()));
    test::saveScreenshot(w.get(), "tutorial_04_shufflenet_step" + std::to_string(k));
  }
  CHECK(kernelCount(w->session().graph()) == 1);
  CHECK(w->session().cost().dramBytes == 1455104);
}

TEST_CASE("tutorial: LayerNorm, lowered, optimized and measured", "[app][tutorial]") {
  auto w = test::makeWindow();
  test::chooseTarget(w.get(), "nvidia-h100");  // the tour's first step
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/layernorm.onnx"))));
  REQUIRE(test::waitForLayout(w->modelTab()->canvas()));
  test::saveScreenshot(w.get(), "tutorial_05_layernorm_model");
  test::openSubgraph(w.get(), 0);
  REQUIRE(w->session().hasGir());
  REQUIRE(test::waitForLayout(w->girCanvas()));
  int kernelsBefore = kernelCount(w->session().graph());
  // docs/tutorial.md, section 5, says what the app shows here: 13 kernels, 3.9 MB at DRAM, 33.8 us.
  CHECK(kernelsBefore == 13);
  CHECK(w->session().cost().dramBytes / 100000 == 39);
  CHECK(w->session().cost().modelledUs == Approx(33.8).margin(0.05));
  test::saveScreenshot(w.get(), "tutorial_06_layernorm_gir");
  REQUIRE(test::runGreedyAndWait(w.get()));
  REQUIRE(w->session().lastFailure().empty());
  REQUIRE(test::waitForLayout(w->girCanvas()));
  CHECK(kernelCount(w->session().graph()) < kernelsBefore);
  // Greedy reaches the subgraph's minimal DRAM bytes: inputs read once, outputs written once.
  CHECK(w->session().cost().dramBytes == w->session().preprocessed().subgraphs[0].minBytes);
  test::saveScreenshot(w.get(), "tutorial_07_layernorm_greedy");

  MeasureTab* m = w->measureTab();
  m->setBudgetMs(20);
  QSignalSpy done(m, &MeasureTab::finished);
  m->start();
  REQUIRE(done.wait(120000));
  REQUIRE(m->result().has_value());
  CHECK(m->scatterPoints() == kernelCount(w->session().graph()));
  w->tabs()->setCurrentWidget(m);
  test::saveScreenshot(w.get(), "tutorial_08_layernorm_measure");
}
