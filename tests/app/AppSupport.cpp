// Screenshots and windows for the GUI tests.
#include "tests/app/AppSupport.h"

#include <QDir>
#include <QPixmap>

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

std::unique_ptr<gir::app::MainWindow> makeWindow() {
  app();
  auto w = std::make_unique<gir::app::MainWindow>();
  w->resize(1500, 950);
  w->show();
  QApplication::processEvents();
  return w;
}

}  // namespace gir::test
