// The Measure tab (docs/app.md, "Tabs"): launch the open GIR-Graph's kernels on this machine's CPU
// (codegen/cpu) on a worker thread with progress and cancel; a table of kernels with modelled against
// measured time; a Qt Charts scatter with the error figures; clicking a point selects the kernel.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "codegen/cpu/Measure.h"

class QChartView;
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
  bool running() const { return watcher_ != nullptr; }
  void clear();   // the graph changed: old figures no longer apply
  const std::optional<codegen::cpu::MeasureResult>& result() const { return result_; }
  int scatterPoints() const;
  QTableWidget* table() const { return table_; }
  void setTimingOptions(const codegen::cpu::TimingOptions& t) { options_.timing = t; }

 Q_SIGNALS:
  void finished(bool ok);
  void kernelSelected(int kernel);
  void error(const QString& title, const QString& message);

 private:
  void show(const codegen::cpu::MeasureResult& r);

  Session& session_;
  QPushButton *run_, *cancel_;
  QProgressBar* progress_;
  QLabel *status_, *figures_;
  QTableWidget* table_;
  QChartView* chart_;
  QScatterSeries* points_ = nullptr;
  codegen::cpu::MeasureOptions options_;
  std::shared_ptr<std::atomic<bool>> cancelFlag_;
  QFutureWatcher<std::shared_ptr<Expected<codegen::cpu::MeasureResult>>>* watcher_ = nullptr;
  std::optional<codegen::cpu::MeasureResult> result_;
};

}  // namespace gir::app
