// The rewrite stepper (docs/app.md, "Tabs", GIR-Graph): applicable rewrites with their predicted cost change,
// apply, undo/redo, the history with each step's validity badge and the running cost curve, the
// greedy run and its playback (play, pause, step, jump), and a loud banner for a failing step.
#pragma once

#include <QWidget>

class QChartView;
class QLabel;
class QLineSeries;
class QComboBox;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QScatterSeries;
class QSpinBox;
class QTableWidget;
class QTimer;
class QCheckBox;
class QProgressBar;

namespace gir::app {

class Session;

class StepperPanel : public QWidget {
  Q_OBJECT

 public:
  explicit StepperPanel(Session& session, QWidget* parent = nullptr);

  void refresh();  // from the session: candidates, history, curve, badges
  void refreshHistory();  // the history list and the failure banner only (a check reported)
  bool applyRow(int row);
  void runGreedy();  // starts the greedy run on a worker thread (Session::startGreedy)
  void play();
  void pause();
  bool playing() const;
  void stepForward();
  void jumpTo(int position);

  QTableWidget* candidateTable() const { return candidates_; }
  QListWidget* historyList() const { return history_; }
  // The pass-by-pass view: the printed GIR's diff for the selected history row, and the rule filter.
  QPlainTextEdit* stepDiff() const { return diff_; }
  QComboBox* ruleFilter() const { return ruleFilter_; }
  void showStepDiff(int row);  // row 0 is the original graph
  QLabel* failureBanner() const { return failure_; }
  QLabel* costLabel() const { return cost_; }
  QProgressBar* greedyProgress() const { return progress_; }
  QLabel* greedyProgressText() const { return progressText_; }
  QPushButton* cancelButton() const { return cancel_; }
  int curvePoints() const;

 Q_SIGNALS:
  void playbackFinished();

 private:
  void buildCurve();
  void fillPredictions();
  void filterHistory();

  Session& session_;
  QTableWidget* candidates_;
  QListWidget* history_;
  QPlainTextEdit* diff_;
  QComboBox* ruleFilter_;
  QLabel *cost_, *failure_, *progressText_;
  QPushButton *apply_, *undo_, *redo_, *greedy_, *cancel_, *play_, *pause_, *step_, *jump_;
  QProgressBar* progress_;
  QSpinBox* jumpTo_;
  QCheckBox* checked_;
  QChartView* chart_;
  QLineSeries* curve_ = nullptr;
  QScatterSeries* here_ = nullptr;
  QTimer* timer_;
};

}  // namespace gir::app
