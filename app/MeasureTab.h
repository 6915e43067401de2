// The Measure tab (docs/app.md, "Measure"): the open GIR-Graph's kernels compiled, checked and timed on
// this machine's CPU by `gir run --measure` in a child process, once the app's own background work is done,
// with progress and cancel; a table of kernels with modelled against measured time; a Qt Charts scatter
// with the error figures; clicking a point selects the kernel; a roofline chart (each kernel's DRAM
// GB/s against the STREAM copy line); and the generated source of the selected kernel for the session's
// target (C++/OpenMP, CUDA or HIP), read-only, with its GIR node comments.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "codegen/cpu/Measure.h"

class QChartView;
class QComboBox;
class QPlainTextEdit;
class QProcess;
class QTemporaryDir;
class QTimer;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QScatterSeries;

namespace gir::app {

class Session;

class MeasureTab : public QWidget {
  Q_OBJECT

 public:
  MeasureTab(Session& session, QWidget* parent = nullptr);
  ~MeasureTab() override;

  void start();   // measures the session's current graph
  void cancel();
  bool running() const { return waiting_ || process_ != nullptr; }
  void clear();   // the graph changed: old figures no longer apply
  const std::optional<codegen::cpu::MeasureResult>& result() const { return result_; }
  int scatterPoints() const;
  QTableWidget* table() const { return table_; }
  void setBudgetMs(int ms) { budgetMs_ = ms; }  // gir run --budget-ms: time spent timing each kernel
  // Waiting for the app's background jobs ends after this long; the result then says it was contended.
  void setIdleWaitMs(int ms) { idleWaitMs_ = ms; }
  QString statusText() const;
  QChartView* rooflineChart() const { return roofline_; }
  // The source view: its kernel picker, the text shown and its caption (language and target).
  QComboBox* sourceKernel() const { return sourceKernel_; }
  QString sourceText() const;
  QString sourceCaption() const;
  void showSource(int kernel);  // regenerates the source first when the graph or target changed

 Q_SIGNALS:
  void finished(bool ok);
  void kernelSelected(int kernel);
  void error(const QString& title, const QString& message);

 private:
  void show(const codegen::cpu::MeasureResult& r);
  void waitForIdle();
  void launch();
  void processFinished();
  void fail(const QString& message);
  void stopChild();
  void showRoofline(const codegen::cpu::MeasureResult& r);
  void refreshSource();

 protected:
  void showEvent(QShowEvent* e) override;

 private:

  Session& session_;
  QPushButton *run_, *cancel_;
  QProgressBar* progress_;
  QLabel *status_, *figures_;
  QTableWidget* table_;
  QChartView *chart_, *roofline_;
  QComboBox* sourceKernel_;
  QLabel* sourceCaption_;
  QPlainTextEdit* source_;
  bool sourceStale_ = true;
  std::vector<std::string> kernelSources_;
  QScatterSeries* points_ = nullptr;
  int budgetMs_ = 200;
  int idleWaitMs_ = 30000;
  bool waiting_ = false;
  int waitedMs_ = 0;
  int contendedJobs_ = 0;  // background jobs still running when the timing started
  QTimer* idlePoll_;
  std::unique_ptr<QTemporaryDir> dir_;  // the graph and hardware files the child reads
  QProcess* process_ = nullptr;
  std::optional<codegen::cpu::MeasureResult> result_;
  std::string hostSource_;  // where the description came from (codegen/cpu/HostDescription.h)
};

}  // namespace gir::app
