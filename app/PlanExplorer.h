// The plan explorer's per-op view (docs/app.md, "Tabs", Plans; issue #9): for one memory-bound subgraph a
// table with one row per op — its name and kind, a combo of the templates it offers (default: the
// GIR search's choice) and a "new kernel here" toggle (default: the GIR planner's kernels) — and
// Re-plan, which lowers the user's plan on a worker thread, validates it (verifier, memory-model
// checker, reference evaluator) and shows it next to the GIR, eager, XLA-like and TVM-like plans of
// the same subgraph (table and bar chart). A valid or invalid plan can be opened on the GIR canvas.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <memory>
#include <optional>

#include "search/PlanExplore.h"

class QChartView;
class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace gir::app {

class Session;

class PlanExplorer : public QWidget {
  Q_OBJECT

 public:
  PlanExplorer(Session& session, QWidget* parent = nullptr);

  void refresh();  // the model changed: the subgraph list; the first is explored when the page shows
  void exploreSubgraph(int index);  // on a worker; exploreReady() when the table is filled
  // The user's edits, as the table widgets hold them.
  void setTemplate(int op, int option);
  void setBoundary(int op, bool newKernel);
  void resetToPlanner();
  bool replan();                  // on a worker; replanned() when the row is in
  bool openInCanvas();            // the last re-planned GIR-Graph on the GIR canvas

  bool busy() const { return exploreWatcher_ || planWatcher_; }
  const std::optional<search::SubgraphExplore>& explored() const { return explore_; }
  const std::optional<search::UserPlan>& userPlan() const { return user_; }
  QTableWidget* opTable() const { return ops_; }
  QTableWidget* planTable() const { return plans_; }
  QLabel* verdict() const { return verdict_; }
  QChartView* chart() const { return chart_; }
  int chartBars() const { return bars_; }

 Q_SIGNALS:
  void exploreReady(bool ok);
  void replanned(bool valid);
  void error(const QString& title, const QString& message);
  void openedInCanvas();

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  void fillOps();
  void showPlans();
  std::vector<search::OpTemplate> choice() const;
  std::vector<bool> boundaries() const;

  Session& session_;
  QComboBox* subgraph_;
  QTableWidget *ops_, *plans_;
  QPushButton *replan_, *reset_, *open_;
  QLabel *status_, *verdict_;
  QChartView* chart_;
  int bars_ = 0;
  int round_ = 0;
  std::optional<search::SubgraphExplore> explore_;
  std::optional<search::UserPlan> user_;
  QFutureWatcher<std::shared_ptr<Expected<search::SubgraphExplore>>>* exploreWatcher_ = nullptr;
  QFutureWatcher<std::shared_ptr<search::UserPlan>>* planWatcher_ = nullptr;
};

}  // namespace gir::app
