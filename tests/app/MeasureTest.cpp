// The Measure tab through the window: the open graph's kernels compiled for this CPU and timed on a
// worker thread; the chart has one point per kernel, the table one row; a point selects its kernel.
#include <catch2/catch.hpp>

#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QTableWidget>

#include "app/MeasureTab.h"
#include "app/SceneItems.h"
#include "app/Session.h"
#include "app/StepperPanel.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

TEST_CASE("measure on the CPU: one point and one row per kernel; selecting a kernel selects its node", "[app]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/golden/gir/figure6.gir"))));
  REQUIRE(test::waitForLayout(w->girCanvas()));
  int kernels = kernelCount(w->session().graph());
  REQUIRE(kernels == 3);
  MeasureTab* m = w->measureTab();
  codegen::cpu::TimingOptions quick;
  quick.warmup = 1;
  quick.minRepeats = 3;
  quick.budgetSeconds = 0.01;
  m->setTimingOptions(quick);
  QSignalSpy done(m, &MeasureTab::finished);
  m->start();
  CHECK(m->running());
  REQUIRE(done.wait(120000));
  REQUIRE(done.front().front().toBool());
  REQUIRE(m->result().has_value());
  CHECK(m->result()->outputsMatch);
  CHECK(m->scatterPoints() == kernels);
  CHECK(m->table()->rowCount() == kernels);
  for (const auto& k : m->result()->kernels) {
    CHECK(k.measured.medianUs > 0);
    CHECK(k.modelledUs > 0);
    // The roofline column: device bytes over the measured time, as a fraction of STREAM copy.
    CHECK(k.dramBytes > 0);
    CHECK(k.measuredGBs == Approx(static_cast<double>(k.dramBytes) / (k.measured.medianUs * 1e3)));
    CHECK(k.fractionOfStream == Approx(k.measuredGBs / m->result()->streamCopyGBs));
  }
  CHECK(m->table()->item(0, 5)->text().contains("%"));
  w->tabs()->setCurrentWidget(m);
  test::saveScreenshot(w.get(), "measure_figure6");
  // A point (here: its kernel number) selects the kernel's first node on the canvas.
  Q_EMIT m->kernelSelected(1);
  auto selected = w->girCanvas()->scene()->selectedItems();
  REQUIRE(selected.size() == 1);
  REQUIRE(selected.front()->type() == NodeItemType);
  auto id = static_cast<NodeItem*>(selected.front())->source();
  CHECK(kernelIndices(w->session().graph())[id] == 1);
  CHECK(w->tabs()->currentIndex() == 1);
  // A new step invalidates the figures.
  REQUIRE(w->stepper()->applyRow(0));
  CHECK_FALSE(m->result().has_value());
}
