// The plan explorer (docs/app.md, "Tabs"): the plans of the open model — at once the baselines'
// analytic plans (eager, XLA-like, TVM-like), then, from a worker thread, every planner lowered to
// GIR and validated with the GIR planner's row first (search/ModelPlanner.h) — kernels, DRAM bytes,
// modelled time as a table and a Qt Charts bar chart; and a hardware what-if editor: edit a copy of
// the hardware JSON, re-plan (analytic baselines), see what changed. A second page holds the per-op
// plan explorer (PlanExplorer).
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <memory>
#include <optional>

#include "core/compute/Preprocess.h"
#include "viz/PlanSummary.h"

class QChartView;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;
class QTabWidget;

namespace gir::app {

class PlanExplorer;
class Session;

class PlanTab : public QWidget {
  Q_OBJECT

 public:
  PlanTab(Session& session, QWidget* parent = nullptr);
  void refresh();
  // Parses the editor's JSON, re-plans with it and lists the differences; errors go to `error`.
  bool replanWhatIf();
  void resetWhatIf();
  QString whatIfText() const;
  void setWhatIfText(const QString& json);

  QTableWidget* table() const { return table_; }
  QListWidget* differences() const { return diffs_; }
  QChartView* chart() const { return chart_; }
  PlanExplorer* explorer() const { return explorer_; }
  QTabWidget* pages() const { return pages_; }
  const std::optional<viz::ModelPlans>& plans() const { return plans_; }
  const std::optional<viz::ModelPlans>& loweredPlans() const { return lowered_; }
  bool loweringPending() const { return loweredWatcher_ != nullptr; }

 Q_SIGNALS:
  void error(const QString& title, const QString& message);
  void loweredPlansReady(bool ok);

 private:
  void showPlans(const viz::ModelPlans& plans, const viz::ModelPlans* whatIf);

  Session& session_;
  QTableWidget* table_;
  QChartView* chart_;
  QPlainTextEdit* editor_;
  QPushButton *replan_, *reset_;
  QListWidget* diffs_;
  QLabel* note_;
  PlanExplorer* explorer_;
  QTabWidget* pages_;
  std::optional<viz::ModelPlans> plans_, lowered_;
  int round_ = 0;
  QFutureWatcher<std::shared_ptr<Expected<viz::ModelPlans>>>* loweredWatcher_ = nullptr;
  void startLowered();
};

}  // namespace gir::app
