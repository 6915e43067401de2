// The window: menus, tabs, routing of session signals to the views, the non-blocking error path.
#include "app/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolBar>
#include <QVBoxLayout>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/AscendTab.h"
#include "app/FindBar.h"
#include "app/GraphCanvas.h"
#include "app/Inspector.h"
#include "app/MeasureTab.h"
#include "app/ModelTab.h"
#include "app/PlanExplorer.h"
#include "app/PlanTab.h"
#include "app/Session.h"
#include "app/StepperPanel.h"
#include "app/TargetPicker.h"
#include "app/Workspace.h"
#include "core/AtomicFile.h"
#include "core/gir/Json.h"
#include "viz/GirView.h"

namespace gir::app {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), session_(new Session(this)) {
  setWindowTitle("GIR Workbench");
  resize(1400, 900);
  tabs_ = new QTabWidget(this);
  modelTab_ = new ModelTab(*session_, this);
  planTab_ = new PlanTab(*session_, this);
  ascendTab_ = new AscendTab(*session_, this);
  tabs_->addTab(modelTab_, "Model");
  buildGirTab();
  tabs_->addTab(planTab_, "Plans");
  tabs_->addTab(ascendTab_, "Ascend");
  measureTab_ = new MeasureTab(*session_, this);
  tabs_->addTab(measureTab_, "Measure");
  setCentralWidget(tabs_);
  buildMenus();
  connect(session_, &Session::modelChanged, modelTab_, &ModelTab::refresh);
  connect(session_, &Session::modelChanged, planTab_, &PlanTab::refresh);
  connect(session_, &Session::hardwareChanged, planTab_, &PlanTab::refresh);
  connect(session_, &Session::ascendChanged, ascendTab_, &AscendTab::refresh);
  connect(session_, &Session::girChanged, this, &MainWindow::onGirChanged);
  // The template search runs on a worker with a progress bar and Cancel (issue #18: the UI froze for seconds).
  connect(modelTab_, &ModelTab::subgraphRequested, this, [this](int i) {
    if (auto st = session_->startSelectSubgraph(i); !st) reportError("Open subgraph", QString::fromStdString(st.error().str()));
  });
  connect(session_, &Session::loweringStarted, this, [this](int i) {
    lowerBar_->show();
    lowerLabel_->setText(QString("Lowering subgraph %1: the GIR planner's template search runs on a worker...").arg(i));
    tabs_->setCurrentIndex(1);
  });
  connect(session_, &Session::loweringFinished, this, [this](bool ok, const QString& error) {
    lowerBar_->hide();
    if (!ok && !error.isEmpty()) reportError("Open subgraph", error);
  });
  connect(planTab_, &PlanTab::error, this, &MainWindow::reportError);
  connect(planTab_, &PlanTab::loweredPlansReady, this, [this](bool ok) {
    if (!ok || !planTab_->loweredPlans()) return;
    for (const auto& n : planTab_->loweredPlans()->uncovered)
      modelTab_->markUncovered(n.subgraph, n.gir ? "GIR, not compared" : "not GIR", QString::fromStdString(n.reason));
  });
  connect(planTab_->explorer(), &PlanExplorer::error, this, &MainWindow::reportError);
  connect(planTab_->explorer(), &PlanExplorer::openedInCanvas, this, [this] { tabs_->setCurrentIndex(1); });
  connect(ascendTab_, &AscendTab::error, this, &MainWindow::reportError);
  connect(measureTab_, &MeasureTab::error, this, &MainWindow::reportError);
  connect(measureTab_, &MeasureTab::kernelSelected, this, &MainWindow::selectKernel);
  buildTargetBar();
}

MainWindow::~MainWindow() = default;

// The target picker, and a status-bar line that says which description every number comes from.
void MainWindow::buildTargetBar() {
  QToolBar* bar = addToolBar("Target");
  bar->setObjectName("target");
  bar->addWidget(new QLabel(" Target: ", bar));
  targetPicker_ = new TargetPicker(*session_, bar);
  bar->addWidget(targetPicker_);
  hardwareLabel_ = new QLabel(this);
  statusBar()->addPermanentWidget(hardwareLabel_);
  auto say = [this] {
    hardwareLabel_->setText("Plans, lowering and costs: " + targetPicker_->source() + ". Measure: this CPU, modelled with cpu-host.");
  };
  connect(session_, &Session::hardwareChanged, this, say);
  connect(targetPicker_, &TargetPicker::error, this, &MainWindow::reportError);
  say();
  QToolBar* find = addToolBar("Find");
  find->setObjectName("find");
  findBar_ = new FindBar([this] { return currentCanvas(); }, find);
  find->addWidget(findBar_);
}

GraphCanvas* MainWindow::currentCanvas() const {
  QWidget* page = tabs_->currentWidget();
  for (GraphCanvas* c : {modelTab_->canvas(), girCanvas_})
    if (page && page->isAncestorOf(c)) return c;
  return nullptr;
}

void MainWindow::buildGirTab() {
  auto* page = new QWidget(this);
  girCanvas_ = new GraphCanvas(page);
  girStatus_ = new QLabel(page);
  girStatus_->setWordWrap(true);
  inspector_ = new Inspector(*session_, page);
  stepper_ = new StepperPanel(*session_, page);
  auto* right = new QSplitter(Qt::Vertical, page);
  right->addWidget(inspector_);
  right->addWidget(stepper_);
  right->setStretchFactor(1, 3);
  lowerBar_ = new QWidget(page);
  lowerLabel_ = new QLabel(lowerBar_);
  auto* spinner = new QProgressBar(lowerBar_);
  spinner->setRange(0, 0);  // busy: the search reports no fraction
  auto* cancel = new QPushButton("Cancel", lowerBar_);
  connect(cancel, &QPushButton::clicked, session_, &Session::cancelLowering);
  auto* bar = new QHBoxLayout(lowerBar_);
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(lowerLabel_);
  bar->addWidget(spinner, 1);
  bar->addWidget(cancel);
  lowerBar_->hide();
  auto* left = new QWidget(page);
  auto* l = new QVBoxLayout(left);
  l->setContentsMargins(0, 0, 0, 0);
  l->addWidget(lowerBar_);
  l->addWidget(girStatus_);
  l->addWidget(girCanvas_, 1);
  auto* split = new QSplitter(page);
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({850, 600});
  auto* layout = new QVBoxLayout(page);
  layout->addWidget(split);
  tabs_->addTab(page, "GIR-Graph");
  connect(girCanvas_, &GraphCanvas::nodeSelected, this, [this](int i) { inspector_->showGirNode(girCanvas_->visibleGraph(), i); });
  connect(girCanvas_, &GraphCanvas::edgeSelected, this, [this](int i) { inspector_->showGirEdge(girCanvas_->visibleGraph(), i); });
  connect(girCanvas_, &GraphCanvas::selectionCleared, inspector_, &Inspector::showNothing);
  connect(girCanvas_, &GraphCanvas::layoutFailed, this, [this](const QString& why) { reportError("Layout", why); });
  girStatus_->setText("No GIR-Graph open.");
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open...", QKeySequence::Open, this, &MainWindow::openDialog);
  file->addAction("&Save workspace...", QKeySequence::Save, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, "Save workspace", QString(), "Workspace (*.json)");
    if (!path.isEmpty()) saveWorkspaceTo(path);
  });
  file->addAction("&Export canvas (SVG, PNG, dot)...", QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] {
    QString path = QFileDialog::getSaveFileName(this, "Export canvas", QString(), "SVG (*.svg);;PNG (*.png);;Graphviz dot (*.dot)");
    if (!path.isEmpty()) exportCanvas(path);
  });
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

  QMenu* edit = menuBar()->addMenu("&Step");
  edit->addAction("&Undo step", QKeySequence::Undo, this, [this] { session_->undo(); });
  edit->addAction("&Redo step", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), this, [this] { session_->redo(); });
  edit->addAction("&Apply selected rewrite", QKeySequence(Qt::CTRL | Qt::Key_Return), this,
                  [this] { stepper_->applyRow(stepper_->candidateTable()->currentRow()); });
  edit->addAction("Run &greedy", QKeySequence(Qt::CTRL | Qt::Key_G), this, [this] { stepper_->runGreedy(); });
  edit->addAction("&Play / pause playback", QKeySequence(Qt::Key_Space), this, [this] { stepper_->playing() ? stepper_->pause() : stepper_->play(); });
  edit->addAction("Step &forward", QKeySequence(Qt::CTRL | Qt::Key_Right), this, [this] { stepper_->stepForward(); });
  edit->addAction("Step &back", QKeySequence(Qt::CTRL | Qt::Key_Left), this, [this] { session_->undo(); });

  // On the current tab's canvas (View > Zoom did nothing on the Model tab, issue #18).
  QMenu* view = menuBar()->addMenu("&View");
  auto onCanvas = [this](void (GraphCanvas::*f)()) {
    return [this, f] {
      if (GraphCanvas* c = currentCanvas()) (c->*f)();
    };
  };
  view->addAction("Zoom &in", QKeySequence::ZoomIn, this, [this] {
    if (GraphCanvas* c = currentCanvas()) c->zoomBy(1.25);
  });
  view->addAction("Zoom &out", QKeySequence::ZoomOut, this, [this] {
    if (GraphCanvas* c = currentCanvas()) c->zoomBy(0.8);
  });
  view->addAction("&Fit", QKeySequence(Qt::CTRL | Qt::Key_0), this, onCanvas(&GraphCanvas::fitAll));
  view->addAction("&Readable size (1:1)", QKeySequence(Qt::CTRL | Qt::Key_1), this, onCanvas(&GraphCanvas::zoomToReadable));
  view->addAction("Fi&nd...", QKeySequence::Find, this, [this] { findBar_->focusQuery(); });
  QAction* diff = view->addAction("Show the last step as a &diff");
  diff->setCheckable(true);
  diff->setChecked(showDiff_);
  connect(diff, &QAction::toggled, this, &MainWindow::setShowDiff);
}

void MainWindow::reportError(const QString& title, const QString& message) {
  lastError_ = message;
  std::cerr << "error: " << title.toStdString() << ": " << message.toStdString() << "\n";
  auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();  // non-blocking: the event loop keeps running, tests close it
  Q_EMIT errorReported(message);
}

void MainWindow::openDialog() {
  QString path = QFileDialog::getOpenFileName(this, "Open", QString(),
                                              "All supported (*.onnx *.gir *.json *.asck);;ONNX (*.onnx);;GIR (*.gir *.json);;"
                                              "Ascend kernel (*.asck);;Hardware or workspace (*.json)");
  if (!path.isEmpty()) openPath(path);
}

// JSON files are a GIR graph ("gir"), a workspace ("gir_workspace") or else a hardware description.
static QString jsonKind(const std::string& text) {
  if (looksLikeWorkspace(text)) return "workspace";
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "gir";  // the GIR parser says why
  if (j.contains("gir")) return "gir";
  if (j.contains("levels") || j.contains("lanes_per_unit") || j.contains("sync_cost_us") || j.contains("launch_cost_us")) return "hardware";
  return "gir";
}

Status MainWindow::openByKind(const QString& path) {
  std::string p = path.toStdString();
  QString ext = QFileInfo(path).suffix().toLower();
  if (ext == "onnx") {
    if (auto st = session_->openModel(p); !st) return st;
    tabs_->setCurrentWidget(modelTab_);
    return success();
  }
  if (ext == "asck") {
    if (auto st = session_->openAscend(p); !st) return st;
    tabs_->setCurrentWidget(ascendTab_);
    return success();
  }
  QString kind = "gir";
  if (ext == "json") {
    auto text = readWholeFile(p);
    if (!text) return text.takeError();
    kind = jsonKind(*text);
    if (kind == "hardware") {
      auto hw = parseHardwareDesc(*text, p);
      if (!hw) return hw.takeError();
      return targetPicker_->addFromFile(*hw, path);
    }
    if (kind == "workspace") return loadWorkspace(*session_, path);
  }
  if (auto st = session_->openGir(p); !st) return st;
  tabs_->setCurrentIndex(1);
  return success();
}

bool MainWindow::openPath(const QString& path) {
  if (!QFileInfo::exists(path)) {
    reportError("Open", QString("error: %1: no such file").arg(path));
    return false;
  }
  Status st = openByKind(path);
  if (!st) {
    reportError("Cannot open " + QFileInfo(path).fileName(), QString::fromStdString(st.error().str()));
    return false;
  }
  setWindowTitle("GIR Workbench - " + QFileInfo(path).fileName());
  return true;
}

bool MainWindow::saveWorkspaceTo(const QString& path) {
  if (auto st = saveWorkspace(*session_, path); !st) {
    reportError("Save workspace", QString::fromStdString(st.error().str()));
    return false;
  }
  statusBar()->showMessage("workspace saved to " + path);
  return true;
}

bool MainWindow::exportCanvas(const QString& path) {
  GraphCanvas* canvas = session_->hasGir() ? girCanvas_ : modelTab_->canvas();
  QString ext = QFileInfo(path).suffix().toLower();
  Status st = ext == "svg" ? canvas->exportSvg(path) : ext == "png" ? canvas->exportPng(path) : ext == "dot" ? canvas->exportDot(path)
                                                                     : Status(makeError("export: use .svg, .png or .dot"));
  if (!st) {
    reportError("Export", QString::fromStdString(st.error().str()));
    return false;
  }
  return true;
}

void MainWindow::setShowDiff(bool on) {
  showDiff_ = on;
  if (session_->hasGir()) onGirChanged();
}

void MainWindow::selectKernel(int k) {
  if (!session_->hasGir()) return;
  const Graph& g = session_->graph();
  std::vector<int> kernels = kernelIndices(g);
  for (uint32_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i] != k) continue;
    if (girCanvas_->visibleGraph().nodes.size() < girCanvas_->fullGraph().nodes.size()) girCanvas_->setExpanded(k, true);
    tabs_->setCurrentIndex(1);
    girCanvas_->selectGraphNode(i);
    return;
  }
}

void MainWindow::onGirChanged() {
  stepper_->refresh();
  if (!measureTab_->running()) measureTab_->clear();
  if (!session_->hasGir()) {
    girCanvas_->clearGraph();
    return;
  }
  bool fresh = session_->generation() != shownGeneration_;
  shownGeneration_ = session_->generation();
  const Graph& g = session_->graph();
  // The view (a diff after a step) is built on the canvas's worker from copies of the graphs.
  if (fresh || !showDiff_) girCanvas_->showGraphFrom([after = g] { return viz::girToViz(after); }, !fresh);
  else girCanvas_->showGraphFrom([before = session_->previous(), after = g] { return viz::girDiff(before, after); }, true);
  QString levels;
  for (const auto& [level, bytes] : session_->cost().bytesPerLevel)
    levels += QString("  %1: %2").arg(QString::fromStdString(level), viz::formatBytes(bytes));
  girStatus_->setText(QString("<b>%1</b> (%2 nodes, %3 kernels) from %4<br>bytes per level:%5")
                          .arg(QString::fromStdString(g.name).toHtmlEscaped())
                          .arg(g.liveNodeCount())
                          .arg(kernelCount(g))
                          .arg(QString::fromStdString(session_->girOrigin()).toHtmlEscaped(), levels));
  inspector_->showNothing();
}

}  // namespace gir::app
