// Opening a model's subgraph lowers it on a worker (issue #18, point 1 item 4 and point 9): the window
// shows what runs with a busy bar and Cancel at once, stays responsive, and a cancelled lowering's
// result is dropped when the search ends. (It froze the UI for about 2 s on GPT-2's attention.)
#include <catch2/catch.hpp>

#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>

#include "app/ModelTab.h"
#include "app/PlanTab.h"
#include "app/Session.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

TEST_CASE("a subgraph lowers on a worker with a busy bar and Cancel, and a cancelled result is dropped", "[app][lowering]") {
  auto w = test::makeWindow();
  test::chooseTarget(w.get(), "cpu-host");
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/gpt2_decode_attention.onnx"))));
  Session& s = w->session();
  QSignalSpy finished(&s, &Session::loweringFinished);
  Q_EMIT w->modelTab()->subgraphRequested(0);
  CHECK(s.loweringRunning());  // the request returned with the search still running on the worker
  CHECK_FALSE(s.hasGir());
  CHECK(w->loweringBar()->isVisible());
  CHECK(w->tabs()->currentIndex() == 1);
  QPushButton* cancel = nullptr;
  for (auto* b : w->loweringBar()->findChildren<QPushButton*>())
    if (b->text() == "Cancel") cancel = b;
  REQUIRE(cancel);
  cancel->click();
  REQUIRE(finished.size() == 1);
  CHECK_FALSE(finished.front()[0].toBool());
  CHECK(finished.front()[1].toString().isEmpty());  // a cancel is not an error
  CHECK_FALSE(s.loweringRunning());
  CHECK_FALSE(w->loweringBar()->isVisible());
  // The search ends in the background; its graph does not open.
  for (int waited = 0; waited < 8000 && s.backgroundJobs() > 0; waited += 100) QTest::qWait(100);
  QTest::qWait(200);
  CHECK_FALSE(s.hasGir());
  CHECK(finished.size() == 1);
  // Asked again and left to finish, it opens.
  REQUIRE(test::openSubgraph(w.get(), 0));
  CHECK(s.hasGir());
  CHECK(s.selectedSubgraph() == 0);
  CHECK_FALSE(w->loweringBar()->isVisible());
}

TEST_CASE("opening another model while a subgraph lowers drops the lowering", "[app][lowering]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/gpt2_decode_attention.onnx"))));
  Session& s = w->session();
  QSignalSpy finished(&s, &Session::loweringFinished);
  Q_EMIT w->modelTab()->subgraphRequested(0);
  REQUIRE(s.loweringRunning());
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/layernorm.onnx"))));
  CHECK_FALSE(s.loweringRunning());
  REQUIRE(finished.size() == 1);
  for (int waited = 0; waited < 8000 && s.backgroundJobs() > 0; waited += 100) QTest::qWait(100);
  QTest::qWait(200);
  CHECK_FALSE(s.hasGir());  // GPT-2's subgraph never opens over the LayerNorm model
  CHECK(s.model().name == "layernorm");
}

TEST_CASE("Plans: the lowered planning shows a busy bar, and Cancel keeps the analytic rows", "[app][lowering]") {
  auto w = test::makeWindow();
  test::chooseTarget(w.get(), "cpu-host");
  PlanTab* p = w->planTab();
  QSignalSpy ready(p, &PlanTab::loweredPlansReady);
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/models/bert_encoder.onnx"))));
  REQUIRE(p->loweringPending());  // seconds of search for 17 subgraphs: still running here
  w->tabs()->setCurrentWidget(p);
  CHECK(p->planningBar()->isVisible());
  CHECK(p->table()->rowCount() == 3);  // the analytic baselines, at once
  p->cancelPlanning();
  REQUIRE(ready.size() == 1);
  CHECK_FALSE(ready.front().front().toBool());
  CHECK_FALSE(p->planningBar()->isVisible());
  CHECK_FALSE(p->loweringPending());
  CHECK(p->noteText().contains("cancelled"));
  for (int waited = 0; waited < 60000 && w->session().backgroundJobs() > 0; waited += 100) QTest::qWait(100);
  QTest::qWait(200);
  CHECK_FALSE(p->loweredPlans().has_value());  // the search's result was dropped
  CHECK(p->table()->rowCount() == 3);
  CHECK(ready.size() == 1);
}
