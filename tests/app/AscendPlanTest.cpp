// The Ascend inspector and the plan explorer through the window: one timeline lane per pipe, flag
// rows within ascend910's 4 IDs per pipe pair, the Chrome trace export; the baseline plan table and
// chart, the hardware what-if editor.
#include <catch2/catch.hpp>

#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <nlohmann/json.hpp>

#include "app/AscendTab.h"
#include "app/PlanTab.h"
#include "app/Session.h"
#include "codegen/ascend/asck/AsckProgram.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

TEST_CASE("open .asck kernels: one lane per pipe, at most 4 flag IDs per pipe pair on ascend910", "[app]") {
  auto w = test::makeWindow();
  for (const char* name : {"matmul_double_buffer.asck", "softmax_rows.asck", "many_live_mte2_v.asck", "vec_add_relu.asck"}) {
    REQUIRE(w->openPath(QString::fromStdString(test::sourcePath(std::string("tests/ascend/corpus/") + name))));
    const auto* k = w->session().ascend();
    REQUIRE(k);
    INFO(name);
    CHECK(k->target.name == "ascend910");
    CHECK(w->ascendTab()->laneCount() == ascend::kNumPipes);
    CHECK_FALSE(w->ascendTab()->flagRowsPerPair().empty());
    for (const auto& [pair, rows] : w->ascendTab()->flagRowsPerPair()) CHECK(rows <= 4);
    CHECK(w->ascendTab()->arrowCount() == static_cast<int>(k->timeline.arrows.size()));
    CHECK(w->ascendTab()->stageList()->count() == static_cast<int>(k->stages.size()));
    CHECK(w->tabs()->currentWidget() == w->ascendTab());
  }
  // The stage list shows each stage's dump.
  w->ascendTab()->stageList()->setCurrentRow(0);
  CHECK(w->ascendTab()->stageText()->toPlainText().toStdString() == w->session().ascend()->stages[0].text);
  w->ascendTab()->stageList()->setCurrentRow(w->ascendTab()->stageList()->count() - 1);
  test::saveScreenshot(w.get(), "ascend_vec_add_relu");
  std::string trace = test::binaryPath("app_trace.json");
  REQUIRE(w->ascendTab()->exportChromeTrace(QString::fromStdString(trace)).ok());
  auto j = nlohmann::json::parse(test::readText(trace));
  CHECK(j["traceEvents"].size() > static_cast<size_t>(ascend::kNumPipes));
}

TEST_CASE("Ascend tab: the portfolio's choice, and the exact search's gap beside the timeline", "[app]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/ascend/patterns/layernorm_row_tiles.asck"))));
  AscendTab* a = w->ascendTab();
  const auto* k = w->session().ascend();
  REQUIRE(k);
  CHECK(k->stats.kept == "cross-iteration cover, fewest reverse pairs");
  CHECK(k->stats.portfolio.size() == 4);  // three variants (no if to lift out of) and barrier-all
  QString stats = a->statsLabel()->text();
  CHECK(stats.contains("kept: cross-iteration cover"));
  CHECK(stats.contains("barrier-all " + QString::number(static_cast<int64_t>(k->stats.barrierAllCycles + 0.5))));
  QSignalSpy done(a, &AscendTab::searchFinished);
  a->runExactSearch();
  CHECK(a->searching());
  REQUIRE(done.wait(120000));
  CHECK(done.front().front().toBool());
  CHECK_FALSE(a->searching());
  QString gap = a->gapLabel()->text();
  INFO(gap.toStdString());
  CHECK(gap.contains("over the optimum with 4 IDs"));
  CHECK(gap.contains("optimum with 4 IDs: 7175 cycles"));  // as `gir ascend-sync --optimal` proves it
  CHECK(gap.contains("optimum with 8 IDs"));
  CHECK(gap.contains("proved"));
  test::saveScreenshot(w.get(), "ascend_exact_search");
  // Opening another kernel clears the result.
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/ascend/corpus/vec_add_relu.asck"))));
  CHECK(a->gapLabel()->text().isEmpty());
}

TEST_CASE("plan explorer: three baseline rows and bars, the what-if editor re-plans and lists changes", "[app]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/shufflenet.onnx"))));
  PlanTab* p = w->planTab();
  REQUIRE(p->plans().has_value());
  CHECK(p->table()->rowCount() == 3);
  CHECK(p->table()->item(0, 0)->text() == "eager (analytic)");
  auto bars = p->chart()->chart()->series();
  REQUIRE(bars.size() == 1);
  CHECK(static_cast<QBarSeries*>(bars[0])->barSets().size() == 1);
  CHECK(static_cast<QBarSeries*>(bars[0])->barSets()[0]->count() == 3);
  // Then every planner lowered to GIR, the GIR planner first: on ShuffleNet it reaches the minimal bytes.
  QSignalSpy lowered(p, &PlanTab::loweredPlansReady);
  REQUIRE((lowered.count() > 0 || lowered.wait(120000)));
  REQUIRE(lowered.front().front().toBool());
  REQUIRE(p->loweredPlans().has_value());
  CHECK(p->table()->rowCount() == 4);
  CHECK(p->table()->item(0, 0)->text() == "gir (lowered)");
  const auto& gir = p->loweredPlans()->planners.front();
  CHECK(gir.valid);
  CHECK(gir.kernels == 1);
  CHECK(gir.dramBytes == p->loweredPlans()->minimalBytes);
  for (const auto& t : p->loweredPlans()->planners) CHECK(t.dramBytes >= gir.dramBytes);
  w->tabs()->setCurrentWidget(p);
  test::saveScreenshot(w.get(), "plans_shufflenet_gir");
  // Halve the DRAM bandwidth in the copy: the session's hardware stays, the modelled times change.
  auto json = nlohmann::json::parse(p->whatIfText().toStdString());
  for (auto& l : json["levels"])
    if (l["scope"] == "device") l["bandwidth_gbs"] = l["bandwidth_gbs"].get<double>() / 2;
  p->setWhatIfText(QString::fromStdString(json.dump(1)));
  // The session's lowered plans stay, with the GIR row (it was lost, issue #18); the what-if's analytic
  // rows come at once and its lowered ones, GIR planner first, when their search lands.
  std::string target = w->session().hardware().name;
  QSignalSpy whatIfLowered(p, &PlanTab::whatIfLoweredReady);
  REQUIRE(p->replanWhatIf());
  CHECK(p->table()->rowCount() == 4 + 3);
  CHECK(p->table()->item(0, 0)->text() == "gir (lowered)");
  CHECK(p->table()->item(4, 0)->text() == "eager (what-if, analytic)");
  bool modelled = false;
  for (int i = 0; i < p->differences()->count(); ++i) modelled |= p->differences()->item(i)->text().contains("modelled");
  CHECK(modelled);
  REQUIRE((whatIfLowered.count() > 0 || whatIfLowered.wait(120000)));
  REQUIRE(whatIfLowered.front().front().toBool());
  CHECK(p->table()->rowCount() == 4 + 4);
  CHECK(p->table()->item(4, 0)->text() == "gir (what-if, lowered)");
  REQUIRE(p->whatIfLoweredPlans().has_value());
  // Half the bandwidth: the same GIR plan, modelled slower.
  CHECK(p->whatIfLoweredPlans()->planners.front().dramBytes == gir.dramBytes);
  CHECK(p->whatIfLoweredPlans()->planners.front().modelledUs > gir.modelledUs);
  CHECK(w->session().hardware().name == target);  // the session's hardware is untouched
  w->tabs()->setCurrentWidget(p);
  test::saveScreenshot(w.get(), "plans_shufflenet_whatif");
  // Reset brings back the session's lowered plans alone.
  for (auto* b : p->findChildren<QPushButton*>())
    if (b->text().startsWith("Reset")) b->click();
  CHECK(p->table()->rowCount() == 4);
  CHECK(p->table()->item(0, 0)->text() == "gir (lowered)");
  CHECK(p->differences()->count() == 0);
  // A broken edit is an error message, not a crash, and the plans stay.
  QSignalSpy errors(w.get(), &MainWindow::errorReported);
  p->setWhatIfText("{\"name\": \"x\", ");
  CHECK_FALSE(p->replanWhatIf());
  CHECK(errors.count() == 1);
  CHECK(test::closeErrorBoxes(w.get()) == 1);
  CHECK(p->plans().has_value());
}
