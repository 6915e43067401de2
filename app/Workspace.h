// Workspaces (docs/app.md, "Decisions"): what the session holds, saved as JSON — the model and its
// selected subgraph, or the GIR file; the rewrite history as a replayable trace; the hardware
// description (with the user's edits); the Ascend kernel. Written atomically with QSaveFile, so a
// crash mid-save never loses the previous file.
#pragma once

#include <QString>
#include <string>

#include "core/Expected.h"

namespace gir::app {

class Session;

std::string workspaceToJson(const Session& s);
Status saveWorkspace(const Session& s, const QString& path);
// Restores into `s`; the first thing that fails stops it, naming the file and the field.
Status loadWorkspace(Session& s, const QString& path);
// True when the text looks like a workspace ({"gir_workspace": ...}).
bool looksLikeWorkspace(const std::string& text);

}  // namespace gir::app
