// Measure waits for the app's background jobs, then runs `gir run --measure --json` as a child process and
// reads its figures (codegen/cpu/Measure.h says why a child); cancel stops the wait or kills the child.
#include "app/MeasureTab.h"

#include <QBarSeries>
#include <QBarSet>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>

#include "app/BarChart.h"
#include "app/GirProcess.h"
#include "app/Session.h"
#include "codegen/KernelSource.h"
#include "codegen/cpu/HostDescription.h"
#include "core/AtomicFile.h"
#include "core/gir/Printer.h"

namespace gir::app {

MeasureTab::MeasureTab(Session& session, QWidget* parent) : QWidget(parent), session_(session) {
  run_ = new QPushButton("Measure on this CPU", this);
  cancel_ = new QPushButton("Cancel", this);
  cancel_->setEnabled(false);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 4);
  status_ = new QLabel("Open a GIR-Graph, then measure its kernels on the CPU (compiled C++/OpenMP).", this);
  figures_ = new QLabel(this);
  figures_->setWordWrap(true);
  table_ = new QTableWidget(0, 6, this);
  table_->setHorizontalHeaderLabels({"kernel", "modelled us", "measured us (median)", "p10 - p90 us", "error %", "DRAM GB/s (of STREAM copy)"});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { Q_EMIT kernelSelected(row); });
  connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) {
    if (row >= 0) showSource(row);
  });
  chart_ = new QChartView(this);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(260);
  roofline_ = new QChartView(this);
  roofline_->setRenderHint(QPainter::Antialiasing);
  sourceKernel_ = new QComboBox(this);
  sourceCaption_ = new QLabel(this);
  source_ = new QPlainTextEdit(this);
  source_->setReadOnly(true);
  source_->setLineWrapMode(QPlainTextEdit::NoWrap);
  source_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  connect(sourceKernel_, &QComboBox::activated, this, [this](int k) { showSource(k); });
  connect(&session_, &Session::hardwareChanged, this, [this] {  // the source follows the target picker
    sourceStale_ = true;
    if (isVisible()) refreshSource();
  });
  idlePoll_ = new QTimer(this);
  idlePoll_->setInterval(50);
  connect(idlePoll_, &QTimer::timeout, this, &MeasureTab::waitForIdle);
  connect(run_, &QPushButton::clicked, this, &MeasureTab::start);
  connect(cancel_, &QPushButton::clicked, this, &MeasureTab::cancel);
  auto* row = new QHBoxLayout;
  row->addWidget(run_);
  row->addWidget(cancel_);
  row->addWidget(progress_, 1);
  auto* charts = new QSplitter(Qt::Horizontal, this);
  charts->addWidget(chart_);
  charts->addWidget(roofline_);
  auto* sourcePage = new QWidget(this);
  auto* sourceRow = new QHBoxLayout;
  sourceRow->addWidget(new QLabel("Generated source of", sourcePage));
  sourceRow->addWidget(sourceKernel_);
  sourceRow->addWidget(sourceCaption_, 1);
  auto* sourceLayout = new QVBoxLayout(sourcePage);
  sourceLayout->setContentsMargins(0, 0, 0, 0);
  sourceLayout->addLayout(sourceRow);
  sourceLayout->addWidget(source_, 1);
  auto* bottom = new QSplitter(Qt::Horizontal, this);
  bottom->addWidget(table_);
  bottom->addWidget(sourcePage);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(bottom);
  split->addWidget(charts);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(row);
  layout->addWidget(status_);
  layout->addWidget(figures_);
  layout->addWidget(split, 1);
  clear();
}

MeasureTab::~MeasureTab() { stopChild(); }

// Kills the child if it still runs and forgets it: its signals no longer reach this tab.
void MeasureTab::stopChild() {
  if (!process_) return;
  process_->disconnect(this);
  if (process_->state() != QProcess::NotRunning) {
    process_->kill();
    process_->waitForFinished(5000);
  }
  process_->deleteLater();
  process_ = nullptr;
}

QString MeasureTab::statusText() const { return status_->text(); }

void MeasureTab::clear() {
  result_.reset();
  table_->setRowCount(0);
  figures_->clear();
  points_ = nullptr;
  replaceChart(chart_, new QChart);
  replaceChart(roofline_, new QChart);
  sourceStale_ = true;  // regenerated when the tab shows or a kernel is picked
  if (isVisible()) refreshSource();
}

void MeasureTab::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (sourceStale_) refreshSource();
}

// The source for the session's target (the Measure figures are the CPU's; the source follows the picker).
void MeasureTab::refreshSource() {
  sourceStale_ = false;
  kernelSources_.clear();
  sourceKernel_->clear();
  source_->clear();
  if (!session_.hasGir()) {
    sourceCaption_->setText("(no GIR-Graph open)");
    return;
  }
  auto s = codegen::generatedKernelSources(session_.graph(), session_.hardware());
  if (!s) {
    sourceCaption_->setText(QString::fromStdString(s.error().message));
    return;
  }
  kernelSources_ = std::move(s->kernels);
  for (size_t k = 0; k < kernelSources_.size(); ++k) sourceKernel_->addItem(QString("kernel %1").arg(k));
  sourceCaption_->setText(QString("%1 for %2, read-only; each node's code follows its GIR comment")
                              .arg(QString::fromStdString(s->language), QString::fromStdString(session_.hardware().name)));
  showSource(0);
}

void MeasureTab::showSource(int kernel) {
  if (sourceStale_) refreshSource();
  if (kernel < 0 || kernel >= static_cast<int>(kernelSources_.size())) return;
  if (sourceKernel_->currentIndex() != kernel) sourceKernel_->setCurrentIndex(kernel);
  source_->setPlainText(QString::fromStdString(kernelSources_[kernel]));
}

QString MeasureTab::sourceText() const { return source_->toPlainText(); }
QString MeasureTab::sourceCaption() const { return sourceCaption_->text(); }

// Achieved DRAM GB/s per kernel (its device bytes over its median time) against STREAM copy's.
void MeasureTab::showRoofline(const codegen::cpu::MeasureResult& r) {
  auto* chart = new QChart;
  chart->setTitle(QString("roofline: DRAM GB/s per kernel; the line is STREAM copy (%1 GB/s)").arg(r.streamCopyGBs, 0, 'f', 1));
  auto* series = new QBarSeries(chart);
  auto* bars = new QBarSet("achieved GB/s", series);
  QStringList names;
  double hi = r.streamCopyGBs;
  for (const auto& k : r.kernels) {
    *bars << k.measuredGBs;
    names << QString::number(k.kernel);
    hi = std::max(hi, k.measuredGBs);
  }
  series->append(bars);
  showBarChart(roofline_, chart, series, names, hi);
  auto* stream = new QLineSeries(chart);
  stream->setName("STREAM copy");
  stream->append(-0.5, r.streamCopyGBs);
  stream->append(static_cast<double>(r.kernels.size()) - 0.5, r.streamCopyGBs);
  chart->addSeries(stream);
  for (QAbstractAxis* axis : chart->axes()) stream->attachAxis(axis);
}

void MeasureTab::cancel() {
  if (!running()) return;
  idlePoll_->stop();
  waiting_ = false;
  stopChild();
  run_->setEnabled(true);
  cancel_->setEnabled(false);
  progress_->setValue(0);
  status_->setText("not measured: measurement cancelled");
  Q_EMIT finished(false);
}

void MeasureTab::start() {
  if (!session_.hasGir()) {
    Q_EMIT error("Measure", "Open a GIR-Graph first (a .gir file or a model's subgraph).");
    return;
  }
  if (running()) return;
  // The same description `gir run` would take: a calibration left in the cache, else the bundled one.
  auto hw = codegen::cpu::cpuHostDescription("", "");
  if (!hw) {
    Q_EMIT error("Measure", QString::fromStdString(hw.error().str()));
    return;
  }
  hostSource_ = hw->source;
  clear();
  dir_ = std::make_unique<QTemporaryDir>();
  std::string base = dir_->path().toStdString();
  auto g = writeFileAtomically(base + "/measured.gir", printGraph(session_.graph()));
  auto h = g ? writeFileAtomically(base + "/hardware.json", hardwareToJson(hw->desc)) : g;
  if (!dir_->isValid() || !h) {
    Q_EMIT error("Measure", QString::fromStdString(dir_->isValid() ? h.error().str() : "cannot create a temporary folder"));
    return;
  }
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  progress_->setValue(1);
  waiting_ = true;
  waitedMs_ = 0;
  waitForIdle();
  if (waiting_) idlePoll_->start();
}

// The kernels are timed on the cores the app's own jobs use: wait for those jobs, up to idleWaitMs_.
void MeasureTab::waitForIdle() {
  int jobs = session_.backgroundJobs();
  if (jobs > 0 && waitedMs_ < idleWaitMs_) {
    status_->setText(QString("waiting for %1 background job(s) of the app (layout, plans, checks) to finish, so that they do not share the "
                             "cores with the timing...").arg(jobs));
    waitedMs_ += idlePoll_->interval();
    return;
  }
  idlePoll_->stop();
  waiting_ = false;
  contendedJobs_ = jobs;
  launch();
}

void MeasureTab::launch() {
  QString why;
  QString exe = girExecutable(&why);
  if (exe.isEmpty()) return fail(why);
  process_ = new QProcess(this);
  connect(process_, &QProcess::finished, this, &MeasureTab::processFinished);
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) fail("cannot start " + process_->program() + ": " + process_->errorString());
  });
  QString dir = dir_->path();
  QStringList args{"run", dir + "/measured.gir", "--hardware", dir + "/hardware.json", "--measure", "--json", "--budget-ms", QString::number(budgetMs_)};
  status_->setText("compiling, checking against the interpreter and timing in a child process: " + exe + " " + args.join(' '));
  progress_->setValue(2);
  process_->start(exe, args);
}

void MeasureTab::fail(const QString& message) {
  stopChild();
  waiting_ = false;
  idlePoll_->stop();
  run_->setEnabled(true);
  cancel_->setEnabled(false);
  progress_->setValue(0);
  status_->setText("not measured: " + message);
  Q_EMIT error("Measure", message);
  Q_EMIT finished(false);
}

// gir run exits 0 (every output matches), 1 (a mismatch: nothing timed) or 2 (bad input, message on stderr).
void MeasureTab::processFinished() {
  QProcess* p = process_;
  QByteArray out = p->readAllStandardOutput(), err = p->readAllStandardError();
  bool crashed = p->exitStatus() == QProcess::CrashExit;
  int code = p->exitCode();
  p->deleteLater();
  process_ = nullptr;
  if (crashed) return fail("gir run crashed: " + QString::fromUtf8(err).trimmed());
  if (code != 0 && code != 1) return fail("gir run exited " + QString::number(code) + ": " + QString::fromUtf8(err).trimmed());
  auto r = codegen::cpu::measureResultFromRunJson(out.toStdString());
  if (!r) return fail(QString::fromStdString(r.error().message));
  run_->setEnabled(true);
  cancel_->setEnabled(false);
  progress_->setValue(4);
  show(*r);
  Q_EMIT finished(true);
}

void MeasureTab::show(const codegen::cpu::MeasureResult& r) {
  result_ = r;
  QStringList wide;  // p90 over 1.5 x p10: something else ran on the cores meanwhile
  for (const auto& k : r.kernels)
    if (k.measured.p10Us > 0 && k.measured.p90Us > 1.5 * k.measured.p10Us) wide << QString::number(k.kernel);
  QString warnings;
  if (contendedJobs_ > 0)
    warnings += QString(" <b>Warning:</b> %1 background job(s) of the app still ran after %2 s of waiting; the times may be inflated.")
                    .arg(contendedJobs_).arg(idleWaitMs_ / 1000.0, 0, 'f', 0);
  if (!wide.isEmpty()) warnings += " <b>Warning:</b> wide spread (p90 > 1.5 x p10) on kernel(s) " + wide.join(", ") + ": the machine was busy, measure again.";
  status_->setText(QString("measured %1 kernel(s) on this CPU with gir run (a child process), modelled with %2 (%6); outputs %3 the "
                           "interpreter's (max relative error %4).%5")
                       .arg(r.kernels.size())
                       .arg(QString::fromStdString(r.hardware))
                       .arg(r.outputsMatch ? "match" : "DO NOT match")
                       .arg(r.maxRelativeOutputError, 0, 'g', 3)
                       .arg(warnings)
                       .arg(QString::fromStdString(hostSource_)));
  figures_->setText(QString("<b>error figures</b>: MAPE %1 %, max relative error %2, Spearman rank correlation %3; the kernel modelled "
                            "fastest %4 within 5 % of the fastest measured. Roofline: each kernel's device bytes over its time, against "
                            "STREAM copy %5 GB/s (%6).")
                        .arg(r.error.mapePercent, 0, 'f', 1)
                        .arg(r.error.maxRelativeError, 0, 'f', 2)
                        .arg(r.error.spearman, 0, 'f', 2)
                        .arg(r.error.pickWithin5Percent ? "measures" : "does not measure")
                        .arg(r.streamCopyGBs, 0, 'f', 1)
                        .arg(QString::fromStdString(r.hardware)));
  table_->setRowCount(static_cast<int>(r.kernels.size()));
  auto* chart = new QChart;
  chart->setTitle("measured vs modelled per kernel; the line is measured = modelled");
  chart->legend()->hide();
  points_ = new QScatterSeries(chart);
  points_->setMarkerSize(11);
  double hi = 0, lo = 1e300;
  for (int i = 0; i < static_cast<int>(r.kernels.size()); ++i) {
    const codegen::cpu::KernelMeasure& k = r.kernels[i];
    table_->setItem(i, 0, new QTableWidgetItem(QString::number(k.kernel)));
    table_->setItem(i, 1, new QTableWidgetItem(QString::number(k.modelledUs, 'f', 3)));
    table_->setItem(i, 2, new QTableWidgetItem(QString::number(k.measured.medianUs, 'f', 3)));
    table_->setItem(i, 3, new QTableWidgetItem(QString("%1 - %2").arg(k.measured.p10Us, 0, 'f', 3).arg(k.measured.p90Us, 0, 'f', 3)));
    table_->setItem(i, 4, new QTableWidgetItem(QString::number(k.errorPercent, 'f', 1)));
    table_->setItem(i, 5, new QTableWidgetItem(QString("%1 (%2 %)").arg(k.measuredGBs, 0, 'f', 1).arg(100 * k.fractionOfStream, 0, 'f', 0)));
    points_->append(k.modelledUs, k.measured.medianUs);
    hi = std::max({hi, k.modelledUs, k.measured.medianUs});
    lo = std::min({lo, k.modelledUs, k.measured.medianUs});
  }
  table_->resizeColumnsToContents();
  // Log axes: modelled and measured times of kernels span decades.
  lo = lo > 0 && lo < 1e300 ? lo / 2 : 0.1;
  hi = hi > lo ? hi * 2 : lo * 10;
  auto* diagonal = new QLineSeries(chart);
  diagonal->append(lo, lo);
  diagonal->append(hi, hi);
  chart->addSeries(diagonal);
  chart->addSeries(points_);
  auto* x = new QLogValueAxis(chart);
  x->setTitleText("modelled us (log)");
  x->setRange(lo, hi);
  x->setLabelFormat("%g");
  auto* y = new QLogValueAxis(chart);
  y->setTitleText("measured us (log)");
  y->setRange(lo, hi);
  y->setLabelFormat("%g");
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (auto* s : std::initializer_list<QAbstractSeries*>{diagonal, points_}) {
    s->attachAxis(x);
    s->attachAxis(y);
  }
  connect(points_, &QScatterSeries::clicked, this, [this](const QPointF& p) {
    if (!result_) return;
    for (const auto& k : result_->kernels)
      if (k.modelledUs == p.x() && k.measured.medianUs == p.y()) Q_EMIT kernelSelected(k.kernel);
  });
  replaceChart(chart_, chart);
  showRoofline(r);
}

int MeasureTab::scatterPoints() const { return points_ ? static_cast<int>(points_->count()) : 0; }

}  // namespace gir::app
