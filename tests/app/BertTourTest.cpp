// A real full model on every tab (issue #18, acceptance): scenarios/models/bert_encoder.onnx, two
// BERT-base layers at batch 8, sequence 128 (scenarios/make_models.py --weights-as-inputs), on
// cpu-host. The Model tab with its 16 library calls and 17 memory-bound subgraphs; the Plans tab with every planner lowered and
// checked; find and the inspector on an attention softmax; its subgraph on the GIR-Graph tab, before
// and after greedy; the same graph lowered to an Ascend .asck program with its flags; Measure.
// Each screenshot goes to docs/screenshots/ (bert_*.png); each step is also a check.
#include <catch2/catch.hpp>

#include <map>

#include <QLineEdit>
#include <QListWidget>
#include <QTabWidget>
#include <QTableWidget>

#include "app/AscendTab.h"
#include "app/FindBar.h"
#include "app/GraphCanvas.h"
#include "app/Inspector.h"
#include "app/MeasureTab.h"
#include "app/ModelTab.h"
#include "app/PlanTab.h"
#include "app/Session.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

TEST_CASE("tour: a BERT-like encoder on every tab", "[app][tutorial][bert]") {
  auto w = test::makeWindow();
  test::chooseTarget(w.get(), "cpu-host");
  QSignalSpy lowered(w->planTab(), &PlanTab::loweredPlansReady);
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/models/bert_encoder.onnx"))));
  REQUIRE(test::waitForLayout(w->modelTab()->canvas()));
  const auto& pre = w->session().preprocessed();
  CHECK(pre.library.size() == 16);  // 2 layers x (q, k, v, qk, pv, o, ffn1, ffn2)
  CHECK(pre.subgraphs.size() == 17);  // the embeddings' LayerNorm, then 8 per layer
  w->tabs()->setCurrentWidget(w->modelTab());
  w->modelTab()->canvas()->fitAll();
  test::saveScreenshot(w.get(), "bert_model");

  // Find the softmaxes by their ONNX op type; the inspector says what the first hit is.
  w->findBar()->query()->setText("Softmax");
  QTest::keyClick(w->findBar()->query(), Qt::Key_Return);
  CHECK(w->findBar()->status().startsWith("1 of "));  // each softmax decomposes into several ops
  CHECK(w->modelTab()->inspector()->toPlainText().contains("ONNX op: Softmax"));
  test::saveScreenshot(w.get(), "bert_model_find");

  REQUIRE((lowered.count() > 0 || lowered.wait(300000)));
  REQUIRE(lowered.back().front().toBool());
  const viz::ModelPlans& plans = *w->planTab()->loweredPlans();
  CHECK(plans.covered == 17);
  REQUIRE(plans.planners.front().planner == "gir");
  const auto& gir = plans.planners.front();
  CHECK(gir.valid);
  for (const auto& t : plans.planners) {
    INFO(t.planner);
    CHECK(t.valid);
    CHECK(gir.dramBytes <= t.dramBytes);
    CHECK(t.dramBytes >= plans.minimalBytes);
  }
  // docs/tutorial.md, section 9, states these kernel counts.
  std::map<std::string, int64_t> kernels;
  for (const auto& t : plans.planners) kernels[t.planner] = t.kernels;
  CHECK(kernels == std::map<std::string, int64_t>{{"gir", 17}, {"eager", 105}, {"xla", 31}, {"tvm", 44}});
  w->tabs()->setCurrentWidget(w->planTab());
  test::saveScreenshot(w.get(), "bert_plans");

  // The softmax's subgraph (scale, mask add, softmax) on the GIR-Graph tab, then greedy.
  int softmax = -1;
  for (size_t i = 0; i < w->session().model().ops.size() && softmax < 0; ++i)
    if (w->session().model().ops[i].source == "Softmax") softmax = pre.subgraphOf[i];
  REQUIRE(softmax >= 0);
  test::openSubgraph(w.get(), softmax);
  REQUIRE(w->session().hasGir());
  REQUIRE(test::waitForLayout(w->girCanvas()));
  test::saveScreenshot(w.get(), "bert_gir_softmax");
  REQUIRE(test::runGreedyAndWait(w.get()));
  REQUIRE(test::waitForLayout(w->girCanvas()));
  CHECK(w->session().cost().dramBytes <= pre.subgraphs[softmax].minBytes * 2);
  test::saveScreenshot(w.get(), "bert_gir_softmax_greedy");

  // The optimized graph lowered to one AI Core's program on ascend910, flags inserted, on the Ascend tab.
  AscendTab* a = w->ascendTab();
  QSignalSpy ascendDone(a, &AscendTab::loweredToAscend);
  a->lowerOpenGraph();
  REQUIRE(ascendDone.wait(300000));
  INFO(w->lastError().toStdString());
  REQUIRE(ascendDone.front().front().toBool());
  REQUIRE(w->session().ascend());
  CHECK(w->session().ascend()->inserted);
  CHECK_FALSE(w->session().ascend()->timeline.deadlock);
  CHECK(a->laneCount() > 0);
  CHECK(a->arrowCount() > 0);
  w->tabs()->setCurrentWidget(a);
  test::saveScreenshot(w.get(), "bert_ascend");

  // Measure the optimized softmax subgraph on this CPU.
  MeasureTab* m = w->measureTab();
  m->setBudgetMs(20);
  QSignalSpy measured(m, &MeasureTab::finished);
  m->start();
  REQUIRE(measured.wait(300000));
  REQUIRE(measured.front().front().toBool());
  CHECK(m->result()->outputsMatch);
  w->tabs()->setCurrentWidget(m);
  m->table()->setCurrentCell(0, 0);
  test::saveScreenshot(w.get(), "bert_measure");
}
