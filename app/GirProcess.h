// The `gir` command line as a child of the app (docs/app.md, "Measure"): where its executable is.
#pragma once

#include <QString>

namespace gir::app {

// $GIR_EXE, else `gir` beside the app, else the build tree's (cli/ beside app/, or the path this build
// made), else `gir` on PATH. Empty, with `why` set, when none exists.
QString girExecutable(QString* why);

}  // namespace gir::app
