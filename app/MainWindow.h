// The one main window (docs/app.md, "Layout"): File menu (open ONNX / GIR text or JSON / .asck /
// hardware JSON / workspace, save workspace, export SVG / PNG / dot), Step menu with the stepping
// shortcuts, and the tabs Model, GIR-Graph (canvas + inspector + rewrite stepper), Plans, Ascend and
// Measure.
// Errors are shown in a non-blocking message box (QMessageBox::open) and announced by errorReported.
#pragma once

#include <QMainWindow>

#include "core/Expected.h"

class QLabel;
class QTabWidget;

namespace gir::app {

class AscendTab;
class GraphCanvas;
class Inspector;
class MeasureTab;
class ModelTab;
class PlanTab;
class Session;
class StepperPanel;
class TargetPicker;
class FindBar;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens any supported file by its content and extension; false (with an error shown) on failure.
  bool openPath(const QString& path);
  bool saveWorkspaceTo(const QString& path);
  bool exportCanvas(const QString& path);  // .svg, .png or .dot of the GIR canvas (Model canvas when no GIR)

  Session& session() { return *session_; }
  GraphCanvas* girCanvas() const { return girCanvas_; }
  StepperPanel* stepper() const { return stepper_; }
  Inspector* inspector() const { return inspector_; }
  ModelTab* modelTab() const { return modelTab_; }
  PlanTab* planTab() const { return planTab_; }
  AscendTab* ascendTab() const { return ascendTab_; }
  MeasureTab* measureTab() const { return measureTab_; }
  TargetPicker* targetPicker() const { return targetPicker_; }
  QLabel* hardwareLabel() const { return hardwareLabel_; }
  FindBar* findBar() const { return findBar_; }
  QWidget* loweringBar() const { return lowerBar_; }
  GraphCanvas* currentCanvas() const;  // the Model or GIR-Graph tab's canvas, else null
  // Selects the first gOperator of kernel `k` on the GIR canvas and shows that tab.
  void selectKernel(int k);
  QTabWidget* tabs() const { return tabs_; }
  const QString& lastError() const { return lastError_; }
  bool showDiff() const { return showDiff_; }
  void setShowDiff(bool on);

 Q_SIGNALS:
  void errorReported(const QString& message);

 public Q_SLOTS:
  void reportError(const QString& title, const QString& message);

 private:
  void buildMenus();
  void buildGirTab();
  void buildTargetBar();
  void onGirChanged();
  void openDialog();
  Status openByKind(const QString& path);

  Session* session_;
  QTabWidget* tabs_;
  ModelTab* modelTab_;
  GraphCanvas* girCanvas_;
  Inspector* inspector_;
  StepperPanel* stepper_;
  PlanTab* planTab_;
  AscendTab* ascendTab_;
  MeasureTab* measureTab_;
  TargetPicker* targetPicker_ = nullptr;
  FindBar* findBar_ = nullptr;
  QLabel* hardwareLabel_ = nullptr;
  QLabel* girStatus_;
  QWidget* lowerBar_;  // a subgraph's lowering on its worker: what runs, a busy bar, Cancel
  QLabel* lowerLabel_;
  QString lastError_;
  bool showDiff_ = true;
  int shownGeneration_ = -1;  // the session graph generation the canvas shows
};

}  // namespace gir::app
