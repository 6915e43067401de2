// Partial coverage in the app (issue #18, point 3): a model with subgraphs that do not lower keeps its
// GIR row; the Plans tab says how many subgraphs the totals cover and why the others are left out (not
// GIR, or GIR but not compared), and the Model tab marks their rows. It used to show "GIR planner:
// error: subgraph 0: ..." and no GIR row at all.
#include <catch2/catch.hpp>

#include <QListWidget>
#include <QTabWidget>
#include <QTableWidget>

#include "app/ModelTab.h"
#include "app/PlanTab.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

TEST_CASE("Plans: subgraphs that do not lower are listed as not GIR or not compared, and the GIR row covers the others", "[app][plans][partial]") {
  auto w = test::makeWindow();
  test::chooseTarget(w.get(), "cpu-host");
  PlanTab* p = w->planTab();
  QSignalSpy lowered(p, &PlanTab::loweredPlansReady);
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/data/partial/partial_coverage.onnx"))));
  REQUIRE((lowered.count() > 0 || lowered.wait(120000)));
  REQUIRE(lowered.back().front().toBool());
  REQUIRE(p->loweredPlans().has_value());
  const viz::ModelPlans& plans = *p->loweredPlans();
  CHECK(plans.subgraphs == 3);
  CHECK(plans.covered == 1);
  REQUIRE(plans.uncovered.size() == 2);
  CHECK(plans.uncovered[0].subgraph == 0);
  CHECK(plans.uncovered[0].gir);
  CHECK(plans.uncovered[1].subgraph == 1);
  CHECK_FALSE(plans.uncovered[1].gir);
  for (const auto& u : plans.uncovered) CHECK(QString::fromStdString(u.reason).contains("register budget"));
  CHECK(plans.minimalBytes == 2 * 256 * 1024 * 4);  // subgraph 2 alone
  REQUIRE(p->table()->rowCount() == 4);
  CHECK(p->table()->item(0, 0)->text() == "gir (lowered)");
  CHECK(plans.planners.front().valid);
  CHECK(plans.planners.front().dramBytes == plans.minimalBytes);
  CHECK(p->noteText().contains("The totals cover 1 of 3 subgraph(s)"));
  CHECK(p->noteText().contains("subgraph 0: GIR, not compared: eager plan: "));
  CHECK(p->noteText().contains("subgraph 1: not GIR: no GIR plan: "));
  // The Model tab's rows say so, with the reason in the tooltip; the covered one's does not.
  QListWidget* list = w->modelTab()->subgraphList();
  REQUIRE(list->count() == 3);
  CHECK(list->item(0)->text().endsWith(": GIR, not compared"));
  CHECK(list->item(1)->text().endsWith(": not GIR"));
  CHECK(list->item(1)->toolTip().contains("register budget"));
  CHECK_FALSE(list->item(2)->text().contains("GIR"));
  w->tabs()->setCurrentWidget(p);
  test::saveScreenshot(w.get(), "plans_partial_coverage");
  // Opening the subgraph that is not GIR is an error message with the size as the reason, not a crash;
  // the one that is GIR but not compared opens.
  test::openSubgraph(w.get(), 1);
  CHECK_FALSE(w->session().hasGir());
  CHECK(w->lastError().contains("register budget"));
  test::openSubgraph(w.get(), 0);
  CHECK(w->session().hasGir());
}
