// Support for the GUI tests: one QApplication (offscreen unless a platform is set), waiting for the
// canvas layout, closing the error boxes, saving screenshots under the build tree.
#pragma once

#include <QApplication>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTest>
#include <QString>
#include <QWidget>
#include <string>

#include "app/GraphCanvas.h"
#include "app/MainWindow.h"
#include "app/ModelTab.h"
#include "app/Session.h"
#include "app/StepperPanel.h"

namespace gir::test {

inline QApplication& app() {
  static int argc = 1;
  static char name[] = "test_app";
  static char* argv[] = {name, nullptr};
  if (qgetenv("QT_QPA_PLATFORM").isEmpty()) qputenv("QT_QPA_PLATFORM", "offscreen");
  static QApplication* a = new QApplication(argc, argv);
  return *a;
}

// Waits until the canvas has no layout running (the newest one has populated the scene).
inline bool waitForLayout(gir::app::GraphCanvas* c, int timeoutMs = 30000) {
  QSignalSpy ready(c, &gir::app::GraphCanvas::sceneReady);
  for (int waited = 0; c->layoutPending() && waited < timeoutMs; waited += 20) ready.wait(20);
  return !c->layoutPending();
}

// Double-clicks subgraph `index` (the Model tab's request) and waits until its lowering on the worker
// has opened the GIR-Graph (true) or failed with an error shown (false).
inline bool openSubgraph(gir::app::MainWindow* w, int index, int timeoutMs = 120000) {
  QSignalSpy done(&w->session(), &gir::app::Session::loweringFinished);
  Q_EMIT w->modelTab()->subgraphRequested(index);
  if (done.isEmpty() && !done.wait(timeoutMs)) return false;
  return done.front().front().toBool();
}

// Presses Run greedy and waits for the worker thread's result to land in the history.
inline bool runGreedyAndWait(gir::app::MainWindow* w, int timeoutMs = 120000) {
  QSignalSpy done(&w->session(), &gir::app::Session::greedyFinished);
  w->stepper()->runGreedy();
  if (!w->session().greedyRunning()) return false;
  return done.wait(timeoutMs);
}

// Waits until every step's check (checked mode, on a worker thread) has reported.
inline bool waitForChecks(gir::app::Session& s, int timeoutMs = 60000) {
  for (int waited = 0; s.checksPending() && waited < timeoutMs; waited += 20) QTest::qWait(20);
  return !s.checksPending();
}

// Closes every error box the window opened; returns how many there were.
inline int closeErrorBoxes(QWidget* w) {
  int n = 0;
  for (QMessageBox* box : w->findChildren<QMessageBox*>()) {
    if (!box->isVisible()) continue;
    box->close();
    ++n;
  }
  QApplication::processEvents();
  return n;
}

// Saves a screenshot of `w` as GIR_BINARY_DIR/screenshots/NAME.png; returns the path.
std::string saveScreenshot(QWidget* w, const std::string& name);

// A shown window of a fixed size (screenshots of the same size on every machine).
std::unique_ptr<gir::app::MainWindow> makeWindow();

// Picks `target` in the toolbar's target picker, as a user does (docs/tutorial.md uses nvidia-h100).
void chooseTarget(gir::app::MainWindow* w, const QString& target);

}  // namespace gir::test
