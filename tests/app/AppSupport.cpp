// Screenshots and windows for the GUI tests.
#include "tests/app/AppSupport.h"

#include <QDir>
#include <QPixmap>
#include <catch2/catch.hpp>

#include "app/TargetPicker.h"
#include "tests/support/TestSupport.h"

namespace gir::test {

std::string saveScreenshot(QWidget* w, const std::string& name) {
  QApplication::processEvents();
  std::string dir = binaryPath("screenshots");
  QDir().mkpath(QString::fromStdString(dir));
  std::string path = dir + "/" + name + ".png";
  w->grab().save(QString::fromStdString(path), "PNG");
  return path;
}

void chooseTarget(gir::app::MainWindow* w, const QString& target) {
  int at = w->targetPicker()->findText(target);
  REQUIRE(at >= 0);
  w->targetPicker()->setCurrentIndex(at);
  Q_EMIT w->targetPicker()->activated(at);
  REQUIRE(w->session().hardware().name == target.toStdString());
}

std::unique_ptr<gir::app::MainWindow> makeWindow() {
  app();
  auto w = std::make_unique<gir::app::MainWindow>();
  w->resize(1500, 950);
  w->show();
  QApplication::processEvents();
  return w;
}

}  // namespace gir::test
