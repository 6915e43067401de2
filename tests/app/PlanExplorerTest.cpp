// The plan explorer's per-op page driven through the real window on the LayerNorm scenario: one row
// per op with the templates search::templateOptions lists and the search's choice preselected; the
// planners' rows of the subgraph; Re-plan of the planner's own choice, of a template that does not
// apply (NOT VALID with the lowering's reason), of a split into one kernel per op; and the plan
// opened on the GIR canvas. Every number is compared with a direct call of the search/ API.
#include <catch2/catch.hpp>

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QTabWidget>
#include <QTableWidget>

#include "app/PlanExplorer.h"
#include "app/PlanTab.h"
#include "core/gir/Printer.h"
#include "rewrite/Cost.h"
#include "search/GirSearch.h"
#include "search/templates/SubgraphCheck.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

namespace {

bool replanAndWait(PlanExplorer* e) {
  QSignalSpy done(e, &PlanExplorer::replanned);
  if (!e->replan()) return false;
  return done.wait(120000);
}

const search::PlanRow* row(const std::vector<search::PlanRow>& rows, const std::string& name) {
  for (const auto& r : rows)
    if (r.planner == name) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("plan explorer: per-op templates and kernel toggles on LayerNorm, re-planned and validated", "[app][plans]") {
  auto w = test::makeWindow();
  test::chooseTarget(w.get(), "nvidia-h100");  // the pictures of docs/tutorial.md
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/layernorm.onnx"))));
  const Session& s = w->session();
  const compute::Subgraph& sub = s.preprocessed().subgraphs.at(0);
  PlanExplorer* e = w->planTab()->explorer();
  QSignalSpy ready(e, &PlanExplorer::exploreReady);
  w->tabs()->setCurrentWidget(w->planTab());
  w->planTab()->pages()->setCurrentWidget(e);  // the page planning starts when it is shown
  REQUIRE(ready.wait(120000));
  REQUIRE(ready.takeFirst().at(0).toBool());
  REQUIRE(e->explored().has_value());

  // One row per op; each combo lists exactly the op's templates, the search's choice selected.
  auto found = search::searchTemplates(s.model(), sub, s.hardware());
  REQUIRE(found);
  int64_t budget = search::boxElementBudget(s.hardware());
  REQUIRE(e->opTable()->rowCount() == static_cast<int>(sub.ops.size()));
  for (int r = 0; r < e->opTable()->rowCount(); ++r) {
    INFO("op " << r);
    auto options = search::templateOptions(s.model(), sub, static_cast<size_t>(r), budget);
    auto* combo = static_cast<QComboBox*>(e->opTable()->cellWidget(r, 2));
    REQUIRE(combo->count() == static_cast<int>(options.size()));
    for (int k = 0; k < combo->count(); ++k) CHECK(combo->itemText(k).toStdString() == options[k].str());
    CHECK(combo->currentText().toStdString() == found->choice[r].str());
    CHECK(e->opTable()->item(r, 0)->text().toStdString() == s.model().op(sub.ops[r]).name);
  }
  // The planners' rows of this subgraph: gir, eager, xla, tvm, all valid, GIR the fastest.
  REQUIRE(e->planTable()->rowCount() == 4);
  CHECK(e->chartBars() == 4);
  const auto& planners = e->explored()->planners;
  REQUIRE(row(planners, "gir"));
  for (const auto& r : planners) {
    CHECK(r.valid);
    CHECK(row(planners, "gir")->modelledUs <= r.modelledUs);
  }

  SECTION("the planner's own choice re-planned: valid, the GIR row's numbers, openable on the canvas") {
    REQUIRE(replanAndWait(e));
    REQUIRE(e->userPlan().has_value());
    const search::PlanRow& yours = e->userPlan()->row;
    CHECK(yours.valid);
    CHECK(e->verdict()->text().startsWith("VALID"));
    CHECK(e->planTable()->rowCount() == 5);
    CHECK(e->chartBars() == 5);
    CHECK(yours.kernels == row(planners, "gir")->kernels);
    CHECK(yours.dramBytes == row(planners, "gir")->dramBytes);
    // The numbers are the cost model's on the optimized graph, and the reference agrees with it.
    const search::LoweredSubgraph& lowered = *e->userPlan()->lowered;
    GraphCost cost = computeCost(lowered.gir, &s.hardware());
    CHECK(cost.dramBytes == yours.dramBytes);
    CHECK(cost.kernels == yours.kernels);
    auto check = search::checkAgainstReference(s.model(), sub, lowered, lowered.gir, 3);
    REQUIRE(check);
    CHECK(check->maxRelativeError <= search::kPlanTolerance);
    test::saveScreenshot(w.get(), "plan_explorer_layernorm");

    REQUIRE(e->openInCanvas());
    CHECK(w->tabs()->currentIndex() == 1);
    CHECK(printGraph(w->session().graph()) == printGraph(lowered.gir));
    REQUIRE(test::waitForLayout(w->girCanvas()));
    CHECK(w->girCanvas()->nodeItemCount({viz::ItemKind::Compute, viz::ItemKind::Movement, viz::ItemKind::Sync}) ==
          static_cast<int>(w->session().graph().liveNodeCount()));
  }

  SECTION("a template that does not apply: NOT VALID with the lowering's reason") {
    // The first non-default option whose lowering the search's own API refuses.
    int op = -1, option = -1;
    std::string why;
    for (int r = 0; r < e->opTable()->rowCount() && op < 0; ++r) {
      auto options = search::templateOptions(s.model(), sub, static_cast<size_t>(r), budget);
      for (int k = 0; k < static_cast<int>(options.size()) && op < 0; ++k) {
        if (options[k] == found->choice[r]) continue;
        auto choice = found->choice;
        choice[r] = options[k];
        auto lowered = search::lowerSubgraph(s.model(), sub, s.hardware(), choice);
        if (!lowered) op = r, option = k, why = lowered.error().message;
      }
    }
    REQUIRE(op >= 0);
    e->setTemplate(op, option);
    REQUIRE(replanAndWait(e));
    const search::PlanRow& yours = e->userPlan()->row;
    CHECK_FALSE(yours.valid);
    CHECK(yours.problem.find(why) != std::string::npos);
    CHECK(e->verdict()->text().startsWith("NOT VALID"));
    CHECK(e->verdict()->text().contains(QString::fromStdString(why).toHtmlEscaped()));
    CHECK(e->planTable()->item(4, 5)->text() == "NOT VALID");
    test::saveScreenshot(w.get(), "plan_explorer_layernorm_invalid");
    // Opening it on the canvas is an error, not a crash.
    QSignalSpy errors(w.get(), &MainWindow::errorReported);
    CHECK_FALSE(e->openInCanvas());
    CHECK(errors.count() == 1);
    test::closeErrorBoxes(w.get());
    // Back to the planner's plan: valid again.
    e->resetToPlanner();
    REQUIRE(replanAndWait(e));
    CHECK(e->userPlan()->row.valid);
  }

  SECTION("one kernel per op: the user's templates per kernel; a follow across a kernel boundary is refused, natural ones lower") {
    for (int r = 1; r < e->opTable()->rowCount(); ++r) e->setBoundary(r, true);
    CHECK(e->opTable()->cellWidget(1, 2)->isEnabled());  // a split plan keeps the user's templates
    // The searched templates follow their producers, which now sit in other kernels.
    int follower = -1;
    for (int r = 0; r < e->opTable()->rowCount() && follower < 0; ++r)
      if (found->choice[r].kind == search::OpTemplate::Kind::Follow) follower = r;
    REQUIRE(follower > 0);
    REQUIRE(replanAndWait(e));
    CHECK_FALSE(e->userPlan()->row.valid);
    CHECK(e->userPlan()->row.problem.find("kernel " + std::to_string(follower)) != std::string::npos);
    CHECK(e->userPlan()->row.problem.find("not produced inside") != std::string::npos);
    // Every op on its first natural template: each kernel lowers as chosen, valid, never below the GIR plan's bytes.
    std::vector<search::OpTemplate> naturals;
    for (int r = 0; r < e->opTable()->rowCount(); ++r) {
      auto options = search::templateOptions(s.model(), sub, static_cast<size_t>(r), budget);
      auto it = std::find_if(options.begin(), options.end(), [](const auto& t) { return t.kind == search::OpTemplate::Kind::Natural; });
      REQUIRE(it != options.end());
      e->setTemplate(r, static_cast<int>(it - options.begin()));
      naturals.push_back(*it);
    }
    REQUIRE(replanAndWait(e));
    const search::PlanRow& yours = e->userPlan()->row;
    INFO(yours.problem);
    CHECK(yours.valid);
    REQUIRE(e->userPlan()->usedTemplates.size() == sub.ops.size());
    for (size_t k = 0; k < sub.ops.size(); ++k) CHECK(e->userPlan()->usedTemplates[k] == std::vector<search::OpTemplate>{naturals[k]});
    CHECK(yours.kernels >= row(planners, "gir")->kernels);
    CHECK(yours.dramBytes >= row(planners, "gir")->dramBytes);
    CHECK(yours.dramBytes >= sub.minBytes);
    CHECK(e->verdict()->text().contains("Templates per kernel:"));
  }

}
