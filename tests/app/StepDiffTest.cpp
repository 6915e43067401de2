// The pass-by-pass view (issue #18, point 6): picking a step in the history shows the unified diff of
// the printed GIR before and after it, beside the canvas diff; the history can be filtered by rule.
#include <catch2/catch.hpp>

#include <QComboBox>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QTabWidget>

#include "app/Session.h"
#include "app/StepperPanel.h"
#include "core/gir/Printer.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"
#include "viz/TextDiff.h"

using namespace gir;
using namespace gir::app;

TEST_CASE("history: a step's printed-GIR diff, and the history filtered by rule", "[app][stepdiff]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/golden/gir/shufflenet_source.gir"))));
  REQUIRE(test::runGreedyAndWait(w.get()));
  Session& s = w->session();
  const auto& h = s.stepper().history();
  REQUIRE(h.size() == 6);
  StepperPanel* p = w->stepper();
  QListWidget* list = p->historyList();
  REQUIRE(list->count() == 7);
  // Each step's text is the diff of the graph before it against the graph after it, and not empty.
  for (int row = 1; row <= 6; ++row) {
    list->setCurrentRow(row);
    QString text = p->stepDiff()->toPlainText();
    INFO("row " << row << ":\n" << text.toStdString());
    CHECK(text.startsWith(QString("step %1: %2 #").arg(row).arg(QString::fromStdString(h[row - 1].rule))));
    std::string expected = viz::unifiedDiff(printGraph(s.graphAfterSteps(row - 1)), printGraph(s.graphAfterSteps(row)));
    CHECK_FALSE(expected.empty());
    CHECK(text.toStdString().find(expected) != std::string::npos);
  }
  // The ends of the history are the original and the current graph.
  CHECK(printGraph(s.graphAfterSteps(0)) == printGraph(s.original()));
  CHECK(printGraph(s.graphAfterSteps(6)) == printGraph(s.graph()));
  list->setCurrentRow(1);
  w->tabs()->setCurrentIndex(1);
  test::saveScreenshot(w.get(), "step_diff_shufflenet");
  // Filter: one rule's steps stay visible, the others are hidden; "all rules" shows them again.
  QComboBox* f = p->ruleFilter();
  REQUIRE(f->count() >= 2);
  QString rule = f->itemText(1);
  f->setCurrentIndex(1);
  int shown = 0;
  for (int row = 1; row < list->count(); ++row) {
    bool match = QString::fromStdString(h[row - 1].rule) == rule;
    CHECK(list->item(row)->isHidden() == !match);
    shown += match;
  }
  CHECK(shown > 0);
  f->setCurrentIndex(0);
  for (int row = 0; row < list->count(); ++row) CHECK_FALSE(list->item(row)->isHidden());
}
