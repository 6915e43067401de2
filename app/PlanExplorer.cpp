// The explorer's table edits a choice; search::exploreSubgraph and search::lowerUserPlan do the work on
// worker threads (a lowering with validation takes from milliseconds to seconds).
#include "app/PlanExplorer.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtConcurrent/QtConcurrentRun>

#include "app/BarChart.h"
#include "app/Session.h"

namespace gir::app {

static constexpr int kTemplateColumn = 2, kBoundaryColumn = 3;

PlanExplorer::PlanExplorer(Session& session, QWidget* parent) : QWidget(parent), session_(session) {
  subgraph_ = new QComboBox(this);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  ops_ = new QTableWidget(0, 4, this);
  ops_->setHorizontalHeaderLabels({"op", "kind", "template", "new kernel here"});
  ops_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  ops_->setColumnWidth(1, 110);
  ops_->setColumnWidth(kTemplateColumn, 190);
  ops_->setColumnWidth(kBoundaryColumn, 130);
  ops_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  replan_ = new QPushButton("Re-plan", this);
  reset_ = new QPushButton("Reset to the GIR planner's plan", this);
  open_ = new QPushButton("Open your plan on the GIR canvas", this);
  verdict_ = new QLabel(this);
  verdict_->setWordWrap(true);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  plans_ = new QTableWidget(0, 6, this);
  plans_->setHorizontalHeaderLabels({"plan", "kernels", "DRAM bytes", "x minimal", "modelled us", "valid"});
  plans_->horizontalHeader()->setStretchLastSection(true);
  plans_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  chart_ = new QChartView(this);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(200);
  connect(subgraph_, QOverload<int>::of(&QComboBox::activated), this, &PlanExplorer::exploreSubgraph);
  connect(replan_, &QPushButton::clicked, this, [this] { replan(); });
  connect(reset_, &QPushButton::clicked, this, &PlanExplorer::resetToPlanner);
  connect(open_, &QPushButton::clicked, this, [this] { openInCanvas(); });

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel("Subgraph:", this));
  top->addWidget(subgraph_, 1);
  auto* buttons = new QHBoxLayout;
  for (auto* b : {replan_, reset_, open_}) buttons->addWidget(b);
  auto* upper = new QWidget(this);
  auto* u = new QVBoxLayout(upper);
  u->setContentsMargins(0, 0, 0, 0);
  u->addLayout(top);
  u->addWidget(status_);
  u->addWidget(ops_, 1);
  u->addLayout(buttons);
  u->addWidget(verdict_);
  auto* lower = new QSplitter(Qt::Horizontal, this);
  lower->addWidget(plans_);
  lower->addWidget(chart_);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(upper);
  split->addWidget(lower);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split);
  refresh();
}

void PlanExplorer::refresh() {
  ++round_;  // results of a running job belong to the previous model or hardware
  explore_.reset();
  user_.reset();
  subgraph_->clear();
  ops_->setRowCount(0);
  verdict_->clear();
  showPlans();
  if (!session_.hasModel() || session_.preprocessed().subgraphs.empty()) {
    status_->setText("Open an ONNX model with a memory-bound subgraph to choose its templates and kernels.");
    for (auto* b : {replan_, reset_, open_}) b->setEnabled(false);
    return;
  }
  const auto& subs = session_.preprocessed().subgraphs;
  for (size_t i = 0; i < subs.size(); ++i)
    subgraph_->addItem(QString("subgraph %1: %2 ops from %3")
                           .arg(i)
                           .arg(subs[i].ops.size())
                           .arg(QString::fromStdString(session_.model().op(subs[i].ops.front()).name)));
  // Planning a subgraph with every planner takes seconds: only when the page is looked at.
  status_->setText("Pick a subgraph.");
  if (isVisible()) exploreSubgraph(0);
}

void PlanExplorer::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (!explore_ && !exploreWatcher_ && subgraph_->count() > 0) exploreSubgraph(std::max(0, subgraph_->currentIndex()));
}

void PlanExplorer::exploreSubgraph(int index) {
  if (!session_.hasModel() || index < 0 || index >= static_cast<int>(session_.preprocessed().subgraphs.size())) return;
  int round = ++round_;
  explore_.reset();
  user_.reset();
  ops_->setRowCount(0);
  verdict_->clear();
  showPlans();
  subgraph_->setCurrentIndex(index);
  for (auto* b : {replan_, reset_, open_}) b->setEnabled(false);
  status_->setText(QString::fromUtf8("Planning subgraph %1 with every planner and listing each op's templates\u2026").arg(index));
  auto* watcher = new QFutureWatcher<std::shared_ptr<Expected<search::SubgraphExplore>>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, round, index] {
    watcher->deleteLater();
    if (exploreWatcher_ == watcher) exploreWatcher_ = nullptr;
    if (round != round_) return;
    auto r = watcher->result();
    if (!*r) {
      status_->setText(QString("subgraph %1: %2").arg(index).arg(QString::fromStdString(r->error().str()).toHtmlEscaped()));
      Q_EMIT exploreReady(false);
      return;
    }
    explore_ = std::move(r->value());
    fillOps();
    showPlans();
    Q_EMIT exploreReady(true);
  });
  exploreWatcher_ = watcher;
  watcher->setFuture(QtConcurrent::run([g = session_.model(), pre = session_.preprocessed(), hw = session_.hardware(), index] {
    return std::make_shared<Expected<search::SubgraphExplore>>(search::exploreSubgraph(g, pre, static_cast<size_t>(index), hw));
  }));
}

void PlanExplorer::fillOps() {
  const search::SubgraphExplore& e = *explore_;
  ops_->setRowCount(static_cast<int>(e.ops.size()));
  for (int r = 0; r < static_cast<int>(e.ops.size()); ++r) {
    const search::ExploreOp& op = e.ops[r];
    ops_->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(op.name)));
    ops_->setItem(r, 1, new QTableWidgetItem(QString::fromStdString(op.kind)));
    auto* combo = new QComboBox(ops_);
    for (const search::OpTemplate& t : op.templates) combo->addItem(QString::fromStdString(t.str()));
    ops_->setCellWidget(r, kTemplateColumn, combo);
    auto* box = new QCheckBox(ops_);
    ops_->setCellWidget(r, kBoundaryColumn, box);
    connect(combo, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this] { verdict_->setText("Edited: press Re-plan."); });
    connect(box, &QCheckBox::toggled, this, [this] { verdict_->setText("Edited: press Re-plan."); });
  }
  resetToPlanner();
  for (auto* b : {replan_, reset_}) b->setEnabled(true);
  status_->setText(QString("Subgraph %1: %2 ops. Defaults are the GIR planner's plan: the search's template per op and its "
                           "kernels. A template that does not apply to an op makes the plan invalid, with the reason.")
                       .arg(e.index)
                       .arg(e.ops.size()));
}

void PlanExplorer::resetToPlanner() {
  if (!explore_) return;
  const search::SubgraphExplore& e = *explore_;
  for (int r = 0; r < ops_->rowCount(); ++r) {
    const auto& options = e.ops[r].templates;
    auto at = r < static_cast<int>(e.searched.size()) ? std::find(options.begin(), options.end(), e.searched[r]) : options.end();
    static_cast<QComboBox*>(ops_->cellWidget(r, kTemplateColumn))->setCurrentIndex(at == options.end() ? 0 : static_cast<int>(at - options.begin()));
    auto* box = static_cast<QCheckBox*>(ops_->cellWidget(r, kBoundaryColumn));
    box->setChecked(r == 0 || (r < static_cast<int>(e.searchedBoundary.size()) && e.searchedBoundary[r]));
    box->setEnabled(r > 0);  // the first op always starts a kernel
  }
  verdict_->clear();
}

void PlanExplorer::setTemplate(int op, int option) {
  if (op < 0 || op >= ops_->rowCount()) return;
  static_cast<QComboBox*>(ops_->cellWidget(op, kTemplateColumn))->setCurrentIndex(option);
}

void PlanExplorer::setBoundary(int op, bool newKernel) {
  if (op <= 0 || op >= ops_->rowCount()) return;
  static_cast<QCheckBox*>(ops_->cellWidget(op, kBoundaryColumn))->setChecked(newKernel);
}

std::vector<search::OpTemplate> PlanExplorer::choice() const {
  std::vector<search::OpTemplate> out;
  for (int r = 0; r < ops_->rowCount(); ++r) {
    int i = static_cast<QComboBox*>(ops_->cellWidget(r, kTemplateColumn))->currentIndex();
    const auto& options = explore_->ops[r].templates;
    out.push_back(i >= 0 && i < static_cast<int>(options.size()) ? options[i] : search::OpTemplate{});
  }
  return out;
}

std::vector<bool> PlanExplorer::boundaries() const {
  std::vector<bool> out;
  for (int r = 0; r < ops_->rowCount(); ++r) out.push_back(static_cast<QCheckBox*>(ops_->cellWidget(r, kBoundaryColumn))->isChecked());
  return out;
}

bool PlanExplorer::replan() {
  if (!explore_ || planWatcher_) return false;
  int round = round_;
  size_t index = explore_->index;
  replan_->setEnabled(false);
  verdict_->setText(QString::fromUtf8("Lowering, optimizing and validating your plan\u2026"));
  auto* watcher = new QFutureWatcher<std::shared_ptr<search::UserPlan>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, round] {
    watcher->deleteLater();
    if (planWatcher_ == watcher) planWatcher_ = nullptr;
    replan_->setEnabled(explore_.has_value());
    if (round != round_) return;
    user_ = *watcher->result();
    const search::PlanRow& r = user_->row;
    QString templates;
    if (user_->usedTemplates.size() > 1) {
      templates = "<br>Templates per kernel:";
      for (size_t k = 0; k < user_->usedTemplates.size(); ++k) {
        QStringList names;
        for (const auto& t : user_->usedTemplates[k]) names << QString::fromStdString(t.str());
        templates += QString(" [kernel %1: %2]").arg(k).arg(names.join(", "));
      }
    }
    verdict_->setStyleSheet(r.valid ? "QLabel { background: #1e803c; color: white; font-weight: bold; padding: 6px; }"
                                    : "QLabel { background: #c0392b; color: white; font-weight: bold; padding: 6px; }");
    verdict_->setText(r.valid ? QString("VALID: %1 kernel(s), %2 DRAM bytes, %3 us modelled%4")
                                    .arg(r.kernels)
                                    .arg(r.dramBytes)
                                    .arg(r.modelledUs, 0, 'f', 3)
                                    .arg(templates)
                              : QString("NOT VALID: %1%2").arg(QString::fromStdString(r.problem).toHtmlEscaped(), templates));
    open_->setEnabled(user_->lowered.has_value());
    showPlans();
    Q_EMIT replanned(r.valid);
  });
  planWatcher_ = watcher;
  watcher->setFuture(QtConcurrent::run([g = session_.model(), sub = session_.preprocessed().subgraphs[index], hw = session_.hardware(),
                                        choice = choice(), boundary = boundaries()] {
    return std::make_shared<search::UserPlan>(search::lowerUserPlan(g, sub, hw, choice, boundary));
  }));
  return true;
}

bool PlanExplorer::openInCanvas() {
  if (!user_ || !explore_) {
    Q_EMIT error("Plan explorer", "Re-plan first: there is no plan of yours to open.");
    return false;
  }
  if (!user_->lowered) {
    Q_EMIT error("Plan explorer", "Your plan did not lower, so there is no GIR-Graph to open: " + QString::fromStdString(user_->row.problem));
    return false;
  }
  std::string origin = session_.modelPath() + " subgraph " + std::to_string(explore_->index) + ", your plan" +
                       (user_->row.valid ? "" : " (NOT VALID)");
  if (auto st = session_.openLowered(*user_->lowered, static_cast<int>(explore_->index), origin); !st) {
    Q_EMIT error("Plan explorer", QString::fromStdString(st.error().str()));
    return false;
  }
  Q_EMIT openedInCanvas();
  return true;
}

void PlanExplorer::showPlans() {
  std::vector<search::PlanRow> rows;
  if (explore_) rows = explore_->planners;
  if (user_) rows.push_back(user_->row);
  plans_->setRowCount(static_cast<int>(rows.size()));
  int64_t minimal = explore_ ? explore_->minimalBytes : 0;
  auto* chart = new QChart;
  chart->setTitle(explore_ ? QString("subgraph %1: modelled time per plan (us)").arg(explore_->index) : QString());
  auto* series = new QBarSeries(chart);
  auto* set = new QBarSet("modelled us", series);
  QStringList names;
  double hi = 0;
  for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
    const search::PlanRow& r = rows[i];
    QString name = QString::fromStdString(r.planner);
    plans_->setItem(i, 0, new QTableWidgetItem(name));
    auto number = [&](const QString& text) { return new QTableWidgetItem(r.lowered ? text : QString::fromUtf8("\u2014")); };
    plans_->setItem(i, 1, number(QString::number(r.kernels)));
    plans_->setItem(i, 2, number(QString::number(r.dramBytes)));
    plans_->setItem(i, 3, number(minimal > 0 ? QString::number(static_cast<double>(r.dramBytes) / static_cast<double>(minimal), 'f', 2) : ""));
    plans_->setItem(i, 4, number(QString::number(r.modelledUs, 'f', 3)));
    auto* valid = new QTableWidgetItem(r.valid ? "valid" : "NOT VALID");
    valid->setToolTip(QString::fromStdString(r.problem));
    valid->setForeground(r.valid ? QColor(0x1e, 0x80, 0x3c) : QColor(0xc0, 0x39, 0x2b));
    plans_->setItem(i, 5, valid);
    *set << r.modelledUs;
    names << name;
    hi = std::max(hi, r.modelledUs);
  }
  bars_ = static_cast<int>(rows.size());
  series->append(set);
  chart->legend()->hide();
  showBarChart(chart_, chart, series, names, hi);
}

}  // namespace gir::app
