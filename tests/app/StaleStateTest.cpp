// Opening another file shows nothing of the previous one (issue #18, point 1, item 5): the Model tab's
// inspector kept the previous model's node, and the GIR tab kept the previous graph's "greedy was cancelled".
#include <catch2/catch.hpp>

#include <QLabel>
#include <QPushButton>

#include "app/Inspector.h"
#include "app/ModelTab.h"
#include "app/Session.h"
#include "app/StepperPanel.h"
#include "core/gir/Parser.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"
#include "tests/viz/SyntheticGir.h"

using namespace gir;
using namespace gir::app;

TEST_CASE("opening another model clears the model inspector", "[app][stale]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/layernorm.onnx"))));
  REQUIRE(test::waitForLayout(w->modelTab()->canvas()));
  Q_EMIT w->modelTab()->canvas()->nodeSelected(0);
  QString shown = w->modelTab()->inspector()->toPlainText();
  REQUIRE_FALSE(shown.contains("Select a node"));
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/shufflenet.onnx"))));
  REQUIRE(test::waitForLayout(w->modelTab()->canvas()));
  INFO(w->modelTab()->inspector()->toPlainText().toStdString());
  CHECK(w->modelTab()->inspector()->toPlainText().contains("Select a node"));
}

TEST_CASE("opening another GIR file drops the previous graph's cancelled-greedy banner", "[app][stale]") {
  auto w = test::makeWindow();
  auto g = parseGirText(test::syntheticGirText(40, 8), "synthetic");
  REQUIRE(g);
  Session& s = w->session();
  REQUIRE(s.setGir(*g, "synthetic"));
  QSignalSpy done(&s, &Session::greedyFinished);
  w->stepper()->runGreedy();
  // Cancelled at once: the worker checks the flag before each of its dozens of steps, so it cannot have
  // converged (waiting for a progress report first let a loaded machine finish the run before the click).
  w->stepper()->cancelButton()->click();
  REQUIRE((done.count() > 0 || done.wait(60000)));
  REQUIRE(s.lastGreedyCancelled());
  REQUIRE(w->stepper()->costLabel()->text().contains("cancelled"));
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/golden/gir/figure6.gir"))));
  CHECK_FALSE(s.lastGreedyCancelled());
  CHECK_FALSE(w->stepper()->costLabel()->text().contains("cancelled"));
}
