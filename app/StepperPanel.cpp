// The stepper's widgets call Session's step API only; refresh() redraws everything from it.
#include "app/StepperPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QSyntaxHighlighter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>

#include "app/BarChart.h"
#include "app/Session.h"
#include "core/gir/Printer.h"
#include "viz/TextDiff.h"

namespace gir::app {

namespace {

// Removed lines red, added green, hunk headers grey: the usual diff colours.
class DiffHighlighter : public QSyntaxHighlighter {
 public:
  using QSyntaxHighlighter::QSyntaxHighlighter;

 protected:
  void highlightBlock(const QString& text) override {
    if (text.startsWith('-')) setFormat(0, static_cast<int>(text.size()), QColor(0xc0, 0x39, 0x2b));
    else if (text.startsWith('+')) setFormat(0, static_cast<int>(text.size()), QColor(0x1e, 0x8e, 0x3e));
    else if (text.startsWith("@@")) setFormat(0, static_cast<int>(text.size()), QColor(0x80, 0x80, 0x80));
  }
};

}  // namespace

static constexpr int kMaxCandidateRows = 500;

StepperPanel::StepperPanel(Session& session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* layout = new QVBoxLayout(this);
  cost_ = new QLabel(this);
  cost_->setWordWrap(true);
  failure_ = new QLabel(this);
  failure_->setWordWrap(true);
  failure_->setStyleSheet("QLabel { background: #c0392b; color: white; font-weight: bold; padding: 6px; }");
  failure_->hide();
  checked_ = new QCheckBox("checked mode: verify every step (interpreter + memory checker)", this);
  checked_->setChecked(session_.checkedMode());
  connect(checked_, &QCheckBox::toggled, this, [this](bool on) { session_.setCheckedMode(on); });

  candidates_ = new QTableWidget(0, 4, this);
  candidates_->setHorizontalHeaderLabels({"rule", "site", "predicted Δ", "why it applies"});
  candidates_->horizontalHeader()->setStretchLastSection(true);
  candidates_->setSelectionBehavior(QAbstractItemView::SelectRows);
  candidates_->setSelectionMode(QAbstractItemView::SingleSelection);
  candidates_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  connect(candidates_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { applyRow(row); });
  connect(&session_, &Session::candidatesPredicted, this, &StepperPanel::fillPredictions);

  auto* buttons = new QHBoxLayout;
  apply_ = new QPushButton("Apply", this);
  undo_ = new QPushButton("Undo", this);
  redo_ = new QPushButton("Redo", this);
  greedy_ = new QPushButton("Run greedy", this);
  cancel_ = new QPushButton("Cancel greedy", this);
  for (auto* b : {apply_, undo_, redo_, greedy_, cancel_}) buttons->addWidget(b);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 0);  // the number of steps is not known ahead: a busy bar and a count beside it
  progress_->setTextVisible(false);
  progressText_ = new QLabel(this);
  progress_->hide();
  progressText_->hide();
  cancel_->hide();
  connect(cancel_, &QPushButton::clicked, this, [this] { session_.cancelGreedy(); });
  connect(&session_, &Session::greedyProgress, this, [this](int steps) {
    progressText_->setText(QString("greedy: %1 step(s) so far%2").arg(steps).arg(session_.checkedMode() ? ", each verified" : ""));
  });
  connect(&session_, &Session::greedyFinished, this, &StepperPanel::refresh);
  connect(&session_, &Session::stepsChecked, this, &StepperPanel::refreshHistory);
  connect(apply_, &QPushButton::clicked, this, [this] { applyRow(candidates_->currentRow()); });
  connect(undo_, &QPushButton::clicked, this, [this] { session_.undo(); });
  connect(redo_, &QPushButton::clicked, this, [this] { session_.redo(); });
  connect(greedy_, &QPushButton::clicked, this, &StepperPanel::runGreedy);

  auto* playback = new QHBoxLayout;
  play_ = new QPushButton("Play", this);
  pause_ = new QPushButton("Pause", this);
  step_ = new QPushButton("Step", this);
  jump_ = new QPushButton("Jump to", this);
  jumpTo_ = new QSpinBox(this);
  for (QWidget* w : std::initializer_list<QWidget*>{play_, pause_, step_, jump_, jumpTo_}) playback->addWidget(w);
  timer_ = new QTimer(this);
  timer_->setInterval(350);
  connect(timer_, &QTimer::timeout, this, &StepperPanel::stepForward);
  connect(play_, &QPushButton::clicked, this, &StepperPanel::play);
  connect(pause_, &QPushButton::clicked, this, &StepperPanel::pause);
  connect(step_, &QPushButton::clicked, this, &StepperPanel::stepForward);
  connect(jump_, &QPushButton::clicked, this, [this] { jumpTo(jumpTo_->value()); });

  history_ = new QListWidget(this);
  connect(history_, &QListWidget::itemActivated, this, [this](QListWidgetItem* it) { jumpTo(history_->row(it)); });
  connect(history_, &QListWidget::currentRowChanged, this, &StepperPanel::showStepDiff);
  ruleFilter_ = new QComboBox(this);
  connect(ruleFilter_, &QComboBox::currentIndexChanged, this, &StepperPanel::filterHistory);
  diff_ = new QPlainTextEdit(this);
  diff_->setReadOnly(true);
  diff_->setLineWrapMode(QPlainTextEdit::NoWrap);
  diff_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  new DiffHighlighter(diff_->document());

  chart_ = new QChartView(this);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(200);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(candidates_);
  auto* historyPage = new QWidget(this);
  auto* historyLayout = new QVBoxLayout(historyPage);
  historyLayout->setContentsMargins(0, 0, 0, 0);
  auto* filterRow = new QHBoxLayout;
  filterRow->addWidget(new QLabel("History, filtered by rule:", historyPage));
  filterRow->addWidget(ruleFilter_, 1);
  historyLayout->addLayout(filterRow);
  auto* historySplit = new QSplitter(Qt::Horizontal, historyPage);
  historySplit->addWidget(history_);
  historySplit->addWidget(diff_);
  historyLayout->addWidget(historySplit, 1);
  split->addWidget(historyPage);
  split->addWidget(chart_);
  layout->addWidget(cost_);
  layout->addWidget(failure_);
  layout->addWidget(checked_);
  layout->addLayout(buttons);
  auto* progressRow = new QHBoxLayout;
  progressRow->addWidget(progress_, 1);
  progressRow->addWidget(progressText_);
  layout->addLayout(progressRow);
  layout->addLayout(playback);
  layout->addWidget(split, 1);
  refresh();
}

bool StepperPanel::playing() const { return timer_->isActive(); }

void StepperPanel::refresh() {
  bool has = session_.hasGir(), running = session_.greedyRunning();
  for (auto* b : {apply_, undo_, redo_, greedy_, play_, pause_, step_, jump_}) b->setEnabled(has && !running);
  cancel_->setVisible(running);
  progress_->setVisible(running);
  progressText_->setVisible(running);
  candidates_->setRowCount(0);
  if (!has) {
    history_->clear();
    cost_->setText("Open a GIR file, or a model and one of its subgraphs.");
    failure_->hide();
    buildCurve();
    return;
  }
  const Stepper& st = session_.stepper();
  QString greedy = session_.lastGreedyCancelled() ? "<br>the last greedy run was cancelled; its steps so far are kept" : "";
  cost_->setText(QString("<b>cost</b>: %1<br><b>step</b> %2 of %3%4")
                     .arg(QString::fromStdString(session_.cost().str()).toHtmlEscaped())
                     .arg(st.position())
                     .arg(st.history().size())
                     .arg(greedy));
  const auto& cands = session_.candidates();
  int rows = std::min<int>(static_cast<int>(cands.size()), kMaxCandidateRows);
  candidates_->setRowCount(rows);
  for (int r = 0; r < rows; ++r) {
    const Candidate& c = cands[r];
    candidates_->setItem(r, 0, new QTableWidgetItem(QString::fromUtf8(c.rule->name().data(), static_cast<int>(c.rule->name().size()))));
    candidates_->setItem(r, 1, new QTableWidgetItem(QString::number(c.siteIndex)));
    candidates_->setItem(r, 3, new QTableWidgetItem(QString::fromStdString(c.explanation)));
  }
  fillPredictions();
  if (rows > 0) candidates_->selectRow(0);
  refreshHistory();
  jumpTo_->setRange(0, static_cast<int>(st.history().size()));
  jumpTo_->setValue(static_cast<int>(st.position()));
  buildCurve();
}

static QString badgeText(Session::Badge b) {
  switch (b) {
    case Session::Badge::Unchecked: return "unchecked";
    case Session::Badge::Checking: return QString::fromUtf8("checking\u2026");
    case Session::Badge::Verified: return QString::fromUtf8("\u2714 verified");
    case Session::Badge::Failed: return QString::fromUtf8("\u2718 FAILED");
  }
  return "?";
}

static QColor badgeColour(Session::Badge b) {
  switch (b) {
    case Session::Badge::Unchecked: return QColor(0x80, 0x80, 0x80);
    case Session::Badge::Checking: return QColor(0xb0, 0x70, 0x00);
    case Session::Badge::Verified: return QColor(0x1e, 0x80, 0x3c);
    case Session::Badge::Failed: return QColor(0xc0, 0x39, 0x2b);
  }
  return QColor(0x80, 0x80, 0x80);
}

void StepperPanel::refreshHistory() {
  history_->clear();
  failure_->setVisible(session_.hasGir() && !session_.lastFailure().empty());
  failure_->setText("STEP FAILED\n" + QString::fromStdString(session_.lastFailure()));
  if (!session_.hasGir()) return;
  const Stepper& st = session_.stepper();
  history_->addItem(QString("0: original  %1").arg(QString::fromStdString(session_.original().name)));
  for (size_t i = 0; i < st.history().size(); ++i) {
    const StepRecord& r = st.history()[i];
    Session::Badge b = session_.badge(i);
    auto* item = new QListWidgetItem(QString("%1: %2 #%3  DRAM %4 -> %5 B  [%6]")
                                         .arg(i + 1)
                                         .arg(QString::fromStdString(r.rule))
                                         .arg(r.siteIndex)
                                         .arg(r.costBefore.dramBytes)
                                         .arg(r.costAfter.dramBytes)
                                         .arg(badgeText(b)));
    item->setToolTip(QString::fromStdString(r.explanation));
    item->setForeground(i >= st.position() ? QColor(0xb0, 0xb0, 0xb0) : badgeColour(b));  // grey: undone, redo-able
    history_->addItem(item);
  }
  history_->setCurrentRow(static_cast<int>(st.position()));
  // The rules in the history, for the filter; the choice is kept while it still occurs.
  QString chosen = ruleFilter_->currentIndex() > 0 ? ruleFilter_->currentText() : QString();
  QStringList rules;
  for (const StepRecord& r : st.history())
    if (!rules.contains(QString::fromStdString(r.rule))) rules << QString::fromStdString(r.rule);
  ruleFilter_->blockSignals(true);
  ruleFilter_->clear();
  ruleFilter_->addItem("all rules");
  ruleFilter_->addItems(rules);
  ruleFilter_->setCurrentIndex(std::max(0, ruleFilter_->findText(chosen)));
  ruleFilter_->blockSignals(false);
  filterHistory();
}

void StepperPanel::filterHistory() {
  QString rule = ruleFilter_->currentIndex() > 0 ? ruleFilter_->currentText() : QString();
  const auto& h = session_.hasGir() ? session_.stepper().history() : std::vector<StepRecord>{};
  for (int row = 1; row < history_->count() && row - 1 < static_cast<int>(h.size()); ++row)
    history_->item(row)->setHidden(!rule.isEmpty() && QString::fromStdString(h[row - 1].rule) != rule);
}

// What the step of history row `row` changed in the printed GIR (docs/gir.md's one printer): unified
// diff of the graph before it against the graph after it, with three lines of context.
void StepperPanel::showStepDiff(int row) {
  if (!session_.hasGir() || row < 0) return diff_->clear();
  if (row == 0) return diff_->setPlainText("The original graph; pick a step to see what it changed in the printed GIR.");
  const StepRecord& r = session_.stepper().history()[static_cast<size_t>(row - 1)];
  std::string before = printGraph(session_.graphAfterSteps(static_cast<size_t>(row - 1)));
  std::string after = printGraph(session_.graphAfterSteps(static_cast<size_t>(row)));
  std::string diff = viz::unifiedDiff(before, after);
  diff_->setPlainText(QString("step %1: %2 #%3: %4\n")
                          .arg(row)
                          .arg(QString::fromStdString(r.rule))
                          .arg(r.siteIndex)
                          .arg(QString::fromStdString(r.explanation)) +
                      QString::fromStdString(diff.empty() ? "(the printed GIR did not change)\n" : diff));
}

void StepperPanel::fillPredictions() {
  if (!session_.hasGir()) return;
  const auto& cands = session_.candidates();
  int rows = std::min<int>(static_cast<int>(cands.size()), candidates_->rowCount());
  for (int r = 0; r < rows; ++r) {
    const Candidate& c = cands[r];
    QString delta = !session_.predictionsReady() ? QString::fromUtf8("…")
                    : session_.girHardware() ? QString("%1 us, %2 B").arg(c.predictedDeltaUs, 0, 'g', 4).arg(c.predictedDeltaDramBytes)
                                             : QString("%1 B").arg(c.predictedDeltaDramBytes);
    candidates_->setItem(r, 2, new QTableWidgetItem(delta));
  }
}

void StepperPanel::buildCurve() {
  auto* chart = new QChart;
  chart->legend()->hide();
  bool hw = session_.hasGir() && session_.girHardware().has_value();
  chart->setTitle(hw ? "modelled time (us) after each step" : "DRAM bytes after each step");
  curve_ = new QLineSeries(chart);
  here_ = new QScatterSeries(chart);
  here_->setMarkerSize(10);
  here_->setColor(QColor(0xc0, 0x39, 0x2b));
  std::vector<double> values = session_.hasGir() ? session_.costCurve(!hw) : std::vector<double>{};
  double lo = 0, hi = 1;
  for (size_t i = 0; i < values.size(); ++i) {
    curve_->append(static_cast<double>(i), values[i]);
    hi = std::max(hi, values[i]);
  }
  if (session_.hasGir() && session_.stepper().position() < values.size())
    here_->append(static_cast<double>(session_.stepper().position()), values[session_.stepper().position()]);
  chart->addSeries(curve_);
  chart->addSeries(here_);
  auto* x = new QValueAxis(chart);
  x->setRange(0, std::max<double>(1, static_cast<double>(values.size()) - 1));
  x->setLabelFormat("%.0f");
  x->setTickCount(static_cast<int>(std::clamp<size_t>(values.size(), 2, 11)));
  x->setTitleText("step");
  auto* y = new QValueAxis(chart);
  y->setRange(lo, hi * 1.05);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (auto* s : std::initializer_list<QAbstractSeries*>{curve_, here_}) {
    s->attachAxis(x);
    s->attachAxis(y);
  }
  replaceChart(chart_, chart);
}

int StepperPanel::curvePoints() const { return curve_ ? static_cast<int>(curve_->count()) : 0; }

bool StepperPanel::applyRow(int row) {
  if (row < 0) return false;
  auto rec = session_.applyCandidate(static_cast<size_t>(row));
  return rec.ok();
}

void StepperPanel::runGreedy() {
  pause();
  progressText_->setText("greedy: starting");
  session_.startGreedy();
  refresh();  // buttons off, Cancel and the progress bar on
}

void StepperPanel::play() {
  if (!session_.hasGir()) return;
  if (session_.stepper().position() >= session_.stepper().history().size()) session_.jumpTo(0);
  timer_->start();
}

void StepperPanel::pause() { timer_->stop(); }

void StepperPanel::stepForward() {
  if (!session_.redo()) {
    timer_->stop();
    Q_EMIT playbackFinished();
  }
}

void StepperPanel::jumpTo(int position) {
  pause();
  session_.jumpTo(static_cast<size_t>(std::max(0, position)));
}

}  // namespace gir::app
