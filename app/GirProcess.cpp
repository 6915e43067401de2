#include "app/GirProcess.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStandardPaths>

namespace gir::app {

QString girExecutable(QString* why) {
  auto runnable = [](const QString& p) { return !p.isEmpty() && QFileInfo(p).isExecutable() && QFileInfo(p).isFile(); };
  QString env = qEnvironmentVariable("GIR_EXE");
  if (!env.isEmpty()) {
    if (runnable(env)) return env;
    if (why) *why = "GIR_EXE is set to '" + env + "', which is not an executable file";
    return {};
  }
  QString dir = QCoreApplication::applicationDirPath();
  for (const QString& p : {dir + "/gir", dir + "/../cli/gir", QString(GIR_BUILD_CLI)})
    if (runnable(p)) return QFileInfo(p).canonicalFilePath();
  QString onPath = QStandardPaths::findExecutable("gir");
  if (!onPath.isEmpty()) return onPath;
  if (why) *why = "the gir command line was not found beside the app (" + dir + "), in the build tree or on PATH; set GIR_EXE";
  return {};
}

}  // namespace gir::app
