// The Measure tab through the window: the open graph's kernels compiled for this CPU and timed by `gir run`
// in a child process; the chart has one point per kernel, the table one row, the roofline one bar; a point
// selects its kernel, a row shows its generated source; the child times exactly the graph `gir run` does,
// even right after a model's subgraph opens.
#include <catch2/catch.hpp>

#include <QBarSeries>
#include <QBarSet>
#include <QComboBox>
#include <QGraphicsItem>
#include <QLineSeries>
#include <QtCharts/QChartView>
#include <QGraphicsScene>
#include <QTableWidget>

#include "app/MeasureTab.h"
#include "app/ModelTab.h"
#include "core/gir/Printer.h"
#include "app/SceneItems.h"
#include "app/Session.h"
#include "app/StepperPanel.h"
#include "app/TargetPicker.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

TEST_CASE("measure on the CPU: one point and one row per kernel, selecting a kernel selects its node", "[app]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/golden/gir/figure6.gir"))));
  REQUIRE(test::waitForLayout(w->girCanvas()));
  int kernels = kernelCount(w->session().graph());
  REQUIRE(kernels == 3);
  MeasureTab* m = w->measureTab();
  m->setBudgetMs(10);
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
  // The roofline: one bar per kernel at its achieved GB/s, and the STREAM copy line.
  QChart* roofline = m->rooflineChart()->chart();
  REQUIRE(roofline->series().size() == 2);
  auto* bars = qobject_cast<QBarSeries*>(roofline->series()[0]);
  REQUIRE(bars);
  REQUIRE(bars->barSets().size() == 1);
  REQUIRE(bars->barSets()[0]->count() == kernels);
  for (int k = 0; k < kernels; ++k) CHECK(bars->barSets()[0]->at(k) == Approx(m->result()->kernels[k].measuredGBs));
  auto* stream = qobject_cast<QLineSeries*>(roofline->series()[1]);
  REQUIRE(stream);
  CHECK(stream->at(0).y() == Approx(m->result()->streamCopyGBs));
  // A row shows that kernel's generated C++ (the session's target here is cpu-host) with its node comments.
  w->tabs()->setCurrentWidget(m);
  m->table()->setCurrentCell(2, 0);
  CHECK(m->sourceKernel()->currentIndex() == 2);
  CHECK(m->sourceCaption().startsWith("C++/OpenMP for cpu-host"));
  CHECK(m->sourceText().contains("void kernel2(float* const* g) {"));
  CHECK(m->sourceText().contains("// node 6: ew.neg"));
  CHECK_FALSE(m->sourceText().contains("void kernel1("));
  test::saveScreenshot(w.get(), "measure_figure6");
  // On a GPU target the source is the CUDA kernel (the figures stay the CPU's).
  test::chooseTarget(w.get(), "nvidia-h100");
  w->tabs()->setCurrentWidget(m);
  m->showSource(0);
  CHECK(m->sourceCaption().startsWith("CUDA for nvidia-h100"));
  CHECK(m->sourceText().contains("__global__"));
  test::chooseTarget(w.get(), "cpu-host");
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

// Issue #18: on a LayerNorm model's subgraph every kernel read 8,000-12,000 us in the app while `gir run
// --measure` gave 9.5-93 us: the app timed in its own process, on the cores its plan searches and checks of
// the freshly opened subgraph were using. Now Measure waits for those jobs and times in a child `gir run` of
// the same graph and hardware. What can be checked without timing noise is checked here: no job contended,
// the child measured exactly the open graph (kernels, modelled times and DRAM bytes equal to a `gir run` of
// it), outputs matched. Whether the two sides' times agree is a speed question, answered by the benchmark
// bench_measure_agreement (docs/app.md, "Measure"): asserted here it failed CI on a loaded machine.
TEST_CASE("Measure times, in a child gir run, exactly the graph gir run --measure times, right after a model's subgraph opens", "[app][measure]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/layernorm.onnx"))));
  REQUIRE(test::waitForLayout(w->modelTab()->canvas()));
  test::openSubgraph(w.get(), 0);
  REQUIRE(w->session().hasGir());
  MeasureTab* m = w->measureTab();
  m->setBudgetMs(20);
  std::string file = test::binaryPath("tests/measure-agreement.gir");
  test::writeText(file, printGraph(w->session().graph()));
  QSignalSpy done(m, &MeasureTab::finished);
  m->start();  // while the subgraph's layout, plans and checks still run: it must wait for them
  REQUIRE(done.wait(180000));
  INFO(m->statusText().toStdString());
  REQUIRE(done.front().front().toBool());
  REQUIRE(m->result().has_value());
  CHECK(m->result()->outputsMatch);
  CHECK_FALSE(m->statusText().contains("background job(s) of the app still ran"));
  std::string out;
  int code = test::runCommand(std::string(GIR_EXE) + " run " + file + " --measure --json --budget-ms 20 2>/dev/null", out);
  REQUIRE(code == 0);
  auto cli = codegen::cpu::measureResultFromRunJson(out);
  REQUIRE(cli);
  REQUIRE(cli->kernels.size() == m->result()->kernels.size());
  REQUIRE(cli->kernels.size() > 1);
  for (size_t k = 0; k < cli->kernels.size(); ++k) {
    INFO("kernel " << k);
    const auto& a = m->result()->kernels[k];
    const auto& c = cli->kernels[k];
    CHECK(a.kernel == c.kernel);
    CHECK(a.modelledUs == c.modelledUs);  // the same graph on the same description: the same model, bit for bit
    CHECK(a.dramBytes == c.dramBytes);
    CHECK(a.measured.medianUs > 0);
    CHECK(a.measured.p10Us <= a.measured.medianUs);
    CHECK(a.measured.medianUs <= a.measured.p90Us);
  }
}

TEST_CASE("Measure: cancel while waiting or timing leaves no child and re-enables the button", "[app][measure]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/golden/gir/figure6.gir"))));
  MeasureTab* m = w->measureTab();
  QSignalSpy done(m, &MeasureTab::finished);
  m->start();
  REQUIRE(m->running());
  m->cancel();
  CHECK_FALSE(m->running());
  REQUIRE(done.size() == 1);
  CHECK_FALSE(done.front().front().toBool());
  CHECK(m->statusText().contains("cancelled"));
  CHECK_FALSE(m->result().has_value());
}
