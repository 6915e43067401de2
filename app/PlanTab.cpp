// Plans through viz::planModel; the what-if run re-preprocesses the model on the edited copy.
#include "app/PlanTab.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtConcurrent/QtConcurrentRun>

#include "app/BarChart.h"
#include "app/HardwareForm.h"
#include "app/PlanExplorer.h"
#include "app/Session.h"

namespace gir::app {

PlanTab::PlanTab(Session& session, QWidget* parent) : QWidget(parent), session_(session) {
  note_ = new QLabel(this);
  note_->setWordWrap(true);
  table_ = new QTableWidget(0, 5, this);
  table_->setHorizontalHeaderLabels({"planner", "kernels", "DRAM bytes", "x minimal", "modelled us"});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  chart_ = new QChartView(this);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(220);
  editor_ = new QPlainTextEdit(this);
  editor_->setFont(QFont("monospace", 9));
  form_ = new HardwareForm(this);
  // The form and the JSON are two views of one copy: a form edit rewrites the JSON, a JSON edit that
  // parses refills the form (issue #18, point 8).
  connect(form_, &HardwareForm::edited, this, [this] {
    auto base = parseHardwareDesc(editor_->toPlainText().toStdString(), "what-if hardware");
    syncingForm_ = true;
    editor_->setPlainText(QString::fromStdString(hardwareToJson(form_->apply(base ? *base : session_.hardware()))));
    syncingForm_ = false;
  });
  connect(editor_, &QPlainTextEdit::textChanged, this, [this] {
    if (syncingForm_) return;
    if (auto hw = parseHardwareDesc(editor_->toPlainText().toStdString(), "what-if hardware")) form_->show(*hw);
  });
  replan_ = new QPushButton("Re-plan with this hardware", this);
  reset_ = new QPushButton("Reset to the session's hardware", this);
  diffs_ = new QListWidget(this);
  connect(replan_, &QPushButton::clicked, this, [this] { replanWhatIf(); });
  connect(reset_, &QPushButton::clicked, this, [this] {
    resetWhatIf();
    diffs_->clear();
    ++whatIfRound_;  // a what-if still lowering is dropped
    whatIf_.reset();
    whatIfLowered_.reset();
    showCurrent();
  });

  planBar_ = new QWidget(this);
  auto* busy = new QProgressBar(planBar_);
  busy->setRange(0, 0);  // the search reports no fraction
  auto* cancelPlan = new QPushButton("Cancel", planBar_);
  connect(cancelPlan, &QPushButton::clicked, this, &PlanTab::cancelPlanning);
  auto* planRow = new QHBoxLayout(planBar_);
  planRow->setContentsMargins(0, 0, 0, 0);
  planRow->addWidget(new QLabel("Lowering every planner's plan to GIR and checking it (the GIR planner searches)...", planBar_));
  planRow->addWidget(busy, 1);
  planRow->addWidget(cancelPlan);
  planBar_->hide();
  auto* left = new QWidget(this);
  auto* l = new QVBoxLayout(left);
  l->addWidget(planBar_);
  l->addWidget(note_);
  l->addWidget(table_, 1);
  l->addWidget(chart_, 2);
  auto* right = new QWidget(this);
  auto* r = new QVBoxLayout(right);
  r->addWidget(new QLabel("Hardware what-if (an edited copy; the session's hardware is untouched): the fields or the JSON", right));
  auto* formScroll = new QScrollArea(right);
  formScroll->setWidget(form_);
  formScroll->setWidgetResizable(true);
  auto* editors = new QSplitter(Qt::Horizontal, right);
  editors->addWidget(formScroll);
  editors->addWidget(editor_);
  formScroll->setMinimumWidth(330);  // labels and values readable; the JSON takes the rest
  r->addWidget(editors, 2);
  auto* row = new QHBoxLayout;
  row->addWidget(replan_);
  row->addWidget(reset_);
  r->addLayout(row);
  r->addWidget(new QLabel("What changed:", right));
  r->addWidget(diffs_, 1);
  auto* split = new QSplitter(this);
  split->addWidget(left);
  split->addWidget(right);
  explorer_ = new PlanExplorer(session_, this);
  pages_ = new QTabWidget(this);
  pages_->addTab(split, "Planners and hardware what-if");
  pages_->addTab(explorer_, "Per-op explorer: templates and kernels");
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(pages_);
  refresh();
}

void PlanTab::refresh() {
  explorer_->refresh();
  ++round_;  // a lowering still running belongs to the previous model or hardware
  planBar_->hide();
  diffs_->clear();
  resetWhatIf();
  plans_.reset();
  ++whatIfRound_;
  whatIf_.reset();
  whatIfLowered_.reset();
  if (!session_.hasModel()) {
    note_->setText("Open an ONNX model to compare the baseline plans. The GIR planner's row joins when the search lands.");
    table_->setRowCount(0);
    replaceChart(chart_, new QChart);
    return;
  }
  auto plans = viz::planModel(session_.model(), session_.preprocessed(), session_.hardware());
  if (!plans) {
    note_->setText("planning failed: " + QString::fromStdString(plans.error().str()));
    return;
  }
  plans_ = *plans;
  lowered_.reset();
  showPlans(*plans_, nullptr);
  startLowered();
}

QFutureWatcher<PlanTab::LoweredResult>* PlanTab::lowerOnWorker(const compute::PreprocessResult& pre, const HardwareDesc& hw,
                                                                std::function<void(const LoweredResult&)> done) {
  auto* watcher = new QFutureWatcher<LoweredResult>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, done = std::move(done)] {
    watcher->deleteLater();
    if (loweredWatcher_ == watcher) loweredWatcher_ = nullptr;
    done(watcher->result());
  });
  watcher->setFuture(QtConcurrent::run([g = session_.model(), pre, hw] {
    return std::make_shared<Expected<viz::ModelPlans>>(viz::planModelLowered(g, pre, hw));
  }));
  return watcher;
}

void PlanTab::startLowered() {
  int round = ++round_;
  planBar_->show();
  loweredWatcher_ = lowerOnWorker(session_.preprocessed(), session_.hardware(), [this, round](const LoweredResult& r) {
    if (round != round_) return;  // the model or hardware changed meanwhile, or Cancel
    planBar_->hide();
    if (!*r) {
      note_->setText(note_->text() + "<br><b>GIR planner</b>: " + QString::fromStdString(r->error().str()).toHtmlEscaped());
      Q_EMIT loweredPlansReady(false);
      return;
    }
    lowered_ = r->value();
    showCurrent();
    Q_EMIT loweredPlansReady(true);
  });
}

void PlanTab::showCurrent() {
  const viz::ModelPlans* base = lowered_ ? &*lowered_ : plans_ ? &*plans_ : nullptr;
  if (!base) return;
  const viz::ModelPlans* other = whatIfLowered_ ? &*whatIfLowered_ : whatIf_ ? &*whatIf_ : nullptr;
  showPlans(*base, other);
}

void PlanTab::showPlans(const viz::ModelPlans& plans, const viz::ModelPlans* whatIf) {
  QString how = plans.lowered ? "Lowered: every plan lowered to GIR with the same templates and validated; DRAM bytes counted on the GIR, "
                                 "modelled time from the GIR cost model."
                               : "Analytic: the baseline plans' DRAM bytes and modelled time (bytes / bandwidth + kernels x launch cost); the "
                                 "lowered plans, with the GIR planner's row, follow when the search finishes.";
  if (whatIf)
    how += whatIf->lowered ? " The what-if rows are lowered too." : " The what-if rows are analytic; their lowered plans follow.";
  QString coverage;  // partial coverage (issue #18): the totals sum the subgraphs that lowered
  if (plans.lowered && plans.covered < plans.subgraphs) {
    coverage = QString("<br><b>The totals cover %1 of %2 subgraph(s)</b>; the others:").arg(plans.covered).arg(plans.subgraphs);
    for (const auto& n : plans.uncovered)
      coverage += QString("<br>&nbsp;&nbsp;subgraph %1: %2: ").arg(n.subgraph).arg(n.gir ? "GIR, not compared" : "not GIR") +
                  QString::fromStdString(n.reason).toHtmlEscaped();
  }
  note_->setText(QString("%1 memory-bound subgraph(s) on %2; minimal DRAM bytes %3%4. %5%6")
                     .arg(plans.subgraphs)
                     .arg(QString::fromStdString(plans.target))
                     .arg(plans.minimalBytes)
                     .arg(plans.lowered ? QString(" over the %1 covered").arg(plans.covered) : QString())
                     .arg(how)
                     .arg(coverage));
  int rows = static_cast<int>(plans.planners.size() + (whatIf ? whatIf->planners.size() : 0));  // lowered plans add the GIR row
  table_->setRowCount(rows);
  auto fill = [&](int row, const viz::PlannerTotals& t, const viz::ModelPlans& p, const QString& suffix) {
    double ratio = p.minimalBytes > 0 ? static_cast<double>(t.dramBytes) / static_cast<double>(p.minimalBytes) : 0;
    QString name = QString::fromStdString(t.planner) + suffix + (t.valid ? "" : " (NOT VALID)");
    auto* item = new QTableWidgetItem(name);
    if (!t.valid) item->setToolTip(QString::fromStdString(t.problem));
    table_->setItem(row, 0, item);
    table_->setItem(row, 1, new QTableWidgetItem(QString::number(t.kernels)));
    table_->setItem(row, 2, new QTableWidgetItem(QString::number(t.dramBytes)));
    table_->setItem(row, 3, new QTableWidgetItem(QString::number(ratio, 'f', 2)));
    table_->setItem(row, 4, new QTableWidgetItem(QString::number(t.modelledUs, 'f', 3)));
  };
  int row = 0;
  for (const auto& t : plans.planners) fill(row++, t, plans, plans.lowered ? " (lowered)" : " (analytic)");
  if (whatIf)
    for (const auto& t : whatIf->planners) fill(row++, t, *whatIf, whatIf->lowered ? " (what-if, lowered)" : " (what-if, analytic)");

  auto* chart = new QChart;
  chart->setTitle("modelled time per planner (us)");
  auto* series = new QBarSeries(chart);
  auto* now = new QBarSet(QString::fromStdString(plans.target), series);
  QStringList names;
  double hi = 0;
  for (const auto& t : plans.planners) {
    *now << t.modelledUs;
    names << QString::fromStdString(t.planner);
    hi = std::max(hi, t.modelledUs);
  }
  series->append(now);
  if (whatIf) {
    // Bars by planner name: an analytic what-if has no GIR row yet (0 there until its lowering lands).
    auto* edited = new QBarSet(QString::fromStdString(whatIf->target) + " (what-if)", series);
    for (const auto& base : plans.planners) {
      double us = 0;
      for (const auto& t : whatIf->planners)
        if (t.planner == base.planner) us = t.modelledUs;
      *edited << us;
      hi = std::max(hi, us);
    }
    series->append(edited);
  }
  showBarChart(chart_, chart, series, names, hi);
}

void PlanTab::cancelPlanning() {
  if (!loweredWatcher_) return;
  ++round_;  // the search ends in the background; its result is dropped
  loweredWatcher_ = nullptr;
  planBar_->hide();
  note_->setText(note_->text() + "<br><b>GIR planner</b>: cancelled; the analytic rows stay (open the model again to search).");
  Q_EMIT loweredPlansReady(false);
}

QString PlanTab::noteText() const { return note_->text(); }
QString PlanTab::whatIfText() const { return editor_->toPlainText(); }
void PlanTab::setWhatIfText(const QString& json) { editor_->setPlainText(json); }
void PlanTab::resetWhatIf() { editor_->setPlainText(QString::fromStdString(hardwareToJson(session_.hardware()))); }

bool PlanTab::replanWhatIf() {
  diffs_->clear();
  whatIf_.reset();
  whatIfLowered_.reset();
  int round = ++whatIfRound_;  // its own count: the session's lowering still running stays current (issue #18)
  showCurrent();
  if (!session_.hasModel() || !plans_) {
    Q_EMIT error("What-if", "Open a model first: the what-if re-plans the open model.");
    return false;
  }
  auto hw = parseHardwareDesc(editor_->toPlainText().toStdString(), "what-if hardware");
  if (!hw) {
    Q_EMIT error("What-if hardware", QString::fromStdString(hw.error().str()));
    return false;
  }
  auto pre = compute::preprocess(session_.model(), *hw);
  if (!pre) {
    Q_EMIT error("What-if hardware", QString::fromStdString(pre.error().str()));
    return false;
  }
  auto plans = viz::planModel(session_.model(), *pre, *hw);
  if (!plans) {
    Q_EMIT error("What-if hardware", QString::fromStdString(plans.error().str()));
    return false;
  }
  for (const std::string& d : viz::whatIfDifferences(session_.model(), session_.preprocessed(), *plans_, *pre, *plans))
    diffs_->addItem(QString::fromStdString(d));
  whatIf_ = *plans;
  showCurrent();
  lowerOnWorker(*pre, *hw, [this, round](const LoweredResult& r) {
    if (round != whatIfRound_ || !whatIf_) return;  // replaced, or reset
    if (!*r) {
      note_->setText(note_->text() + "<br><b>what-if, lowered</b>: " + QString::fromStdString(r->error().str()).toHtmlEscaped());
      Q_EMIT whatIfLoweredReady(false);
      return;
    }
    whatIfLowered_ = r->value();
    if (lowered_)  // the lowered rows' changes, the GIR planner's first (the analytic lines have no GIR row)
      for (const std::string& d : viz::plannerDifferences(*lowered_, *whatIfLowered_)) diffs_->addItem(QString::fromStdString(d));
    showCurrent();
    Q_EMIT whatIfLoweredReady(true);
  });
  return true;
}

}  // namespace gir::app
