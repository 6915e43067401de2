// The plan explorer (docs/app.md, "Tabs"): the plans of the open model — at once the baselines'
// analytic plans (eager, XLA-like, TVM-like), then, from a worker thread, every planner lowered to
// GIR and validated with the GIR planner's row first (search/ModelPlanner.h) — kernels, DRAM bytes,
// modelled time as a table and a Qt Charts bar chart; and a hardware what-if editor: edit a copy of
// the hardware JSON, re-plan (analytic baselines), see what changed. A second page holds the per-op
// plan explorer (PlanExplorer).
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <functional>
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

class HardwareForm;
class PlanExplorer;
class Session;

class PlanTab : public QWidget {
  Q_OBJECT

 public:
  PlanTab(Session& session, QWidget* parent = nullptr);
  void refresh();
  // Parses the editor's JSON, re-plans with it and lists the differences; errors go to `error`.
  // The what-if shows the analytic plans at once and its lowered ones (with the GIR planner's row) when
  // their search finishes (whatIfLoweredReady); Reset goes back to the session's plans, lowered if ready.
  bool replanWhatIf();
  void resetWhatIf();
  QString whatIfText() const;
  HardwareForm* whatIfForm() const { return form_; }
  void setWhatIfText(const QString& json);

  QTableWidget* table() const { return table_; }
  QString noteText() const;
  QListWidget* differences() const { return diffs_; }
  QChartView* chart() const { return chart_; }
  PlanExplorer* explorer() const { return explorer_; }
  QTabWidget* pages() const { return pages_; }
  const std::optional<viz::ModelPlans>& plans() const { return plans_; }
  const std::optional<viz::ModelPlans>& loweredPlans() const { return lowered_; }
  const std::optional<viz::ModelPlans>& whatIfLoweredPlans() const { return whatIfLowered_; }
  bool loweringPending() const { return loweredWatcher_ != nullptr; }
  // The lowered planning's busy bar and Cancel (issue #18, point 9): Cancel drops the running search's
  // result (it ends in the background) and keeps the analytic rows; loweredPlansReady(false) follows.
  QWidget* planningBar() const { return planBar_; }
  void cancelPlanning();

 Q_SIGNALS:
  void error(const QString& title, const QString& message);
  void loweredPlansReady(bool ok);
  void whatIfLoweredReady(bool ok);

 private:
  void showPlans(const viz::ModelPlans& plans, const viz::ModelPlans* whatIf);
  void showCurrent();  // the session's plans (lowered once ready) and the what-if's, if any
  using LoweredResult = std::shared_ptr<Expected<viz::ModelPlans>>;
  // planModelLowered on a worker; `done` runs on the UI thread and checks whether its round is still current.
  QFutureWatcher<LoweredResult>* lowerOnWorker(const compute::PreprocessResult& pre, const HardwareDesc& hw,
                                               std::function<void(const LoweredResult&)> done);

  Session& session_;
  QTableWidget* table_;
  QChartView* chart_;
  QPlainTextEdit* editor_;
  HardwareForm* form_;
  bool syncingForm_ = false;  // the form is writing the JSON: do not read it back
  QPushButton *replan_, *reset_;
  QListWidget* diffs_;
  QLabel* note_;
  PlanExplorer* explorer_;
  QTabWidget* pages_;
  std::optional<viz::ModelPlans> plans_, lowered_;
  std::optional<viz::ModelPlans> whatIf_, whatIfLowered_;  // analytic, then lowered
  int round_ = 0, whatIfRound_ = 0;
  QWidget* planBar_;
  QFutureWatcher<std::shared_ptr<Expected<viz::ModelPlans>>>* loweredWatcher_ = nullptr;
  void startLowered();
};

}  // namespace gir::app
