// gir-workbench: the desktop app. Usage: gir-workbench [FILE...] (ONNX, GIR text/JSON, .asck,
// hardware JSON or workspace), opened in order.
#include <QApplication>
#include <QStringList>

#include "app/MainWindow.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("GIR Workbench");
  gir::app::MainWindow window;
  window.show();
  const QStringList args = QApplication::arguments();
  for (int i = 1; i < args.size(); ++i) window.openPath(args[i]);
  return QApplication::exec();
}
