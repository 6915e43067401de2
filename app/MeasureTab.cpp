// The measurement runs in QtConcurrent; progress comes back as queued calls; the newest run wins.
#include "app/MeasureTab.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>
#include <QtConcurrent/QtConcurrentRun>

#include "app/Session.h"

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
  chart_ = new QChartView(this);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(260);
  connect(run_, &QPushButton::clicked, this, &MeasureTab::start);
  connect(cancel_, &QPushButton::clicked, this, &MeasureTab::cancel);
  auto* row = new QHBoxLayout;
  row->addWidget(run_);
  row->addWidget(cancel_);
  row->addWidget(progress_, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(chart_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(row);
  layout->addWidget(status_);
  layout->addWidget(figures_);
  layout->addWidget(split, 1);
  clear();
}

MeasureTab::~MeasureTab() {
  if (cancelFlag_) cancelFlag_->store(true);
  if (watcher_) watcher_->waitForFinished();
}

void MeasureTab::clear() {
  result_.reset();
  table_->setRowCount(0);
  figures_->clear();
  points_ = nullptr;
  QChart* old = chart_->chart();
  chart_->setChart(new QChart);
  delete old;
}

void MeasureTab::cancel() {
  if (cancelFlag_) cancelFlag_->store(true);
  status_->setText("cancelling after the current stage...");
}

void MeasureTab::start() {
  if (!session_.hasGir()) {
    Q_EMIT error("Measure", "Open a GIR-Graph first (a .gir file or a model's subgraph).");
    return;
  }
  if (watcher_) return;
  auto hw = loadHardwareByName("cpu-host");
  if (!hw) {
    Q_EMIT error("Measure", QString::fromStdString(hw.error().str()));
    return;
  }
  clear();
  cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  progress_->setValue(0);
  QPointer<MeasureTab> self(this);
  auto progress = [self](int stage, int, const std::string& what) {
    QString text = QString::fromStdString(what);
    QMetaObject::invokeMethod(self.data(), [self, stage, text] {
      if (!self) return;
      self->progress_->setValue(stage);
      self->status_->setText(text + "...");
    }, Qt::QueuedConnection);
  };
  watcher_ = new QFutureWatcher<std::shared_ptr<Expected<codegen::cpu::MeasureResult>>>(this);
  connect(watcher_, &QFutureWatcherBase::finished, this, [this] {
    auto r = watcher_->result();
    watcher_->deleteLater();
    watcher_ = nullptr;
    run_->setEnabled(true);
    cancel_->setEnabled(false);
    progress_->setValue(4);
    if (!*r) {
      status_->setText("not measured: " + QString::fromStdString(r->error().message));
      if (r->error().message != "measurement cancelled") Q_EMIT error("Measure", QString::fromStdString(r->error().str()));
      Q_EMIT finished(false);
      return;
    }
    show(r->value());
    Q_EMIT finished(true);
  });
  watcher_->setFuture(QtConcurrent::run([g = session_.graph(), hw = *hw, options = options_, cancel = cancelFlag_, progress] {
    return std::make_shared<Expected<codegen::cpu::MeasureResult>>(codegen::cpu::measureOnCpu(g, hw, options, cancel.get(), progress));
  }));
}

void MeasureTab::show(const codegen::cpu::MeasureResult& r) {
  result_ = r;
  status_->setText(QString("measured %1 kernel(s) on this CPU, modelled with %2; outputs %3 the interpreter's (max relative error %4)")
                       .arg(r.kernels.size())
                       .arg(QString::fromStdString(r.hardware))
                       .arg(r.outputsMatch ? "match" : "DO NOT match")
                       .arg(r.maxRelativeOutputError, 0, 'g', 3));
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
  QChart* old = chart_->chart();
  chart_->setChart(chart);
  delete old;
}

int MeasureTab::scatterPoints() const { return points_ ? static_cast<int>(points_->count()) : 0; }

}  // namespace gir::app
