// The JSON form of a GIR-Graph (what files and the app save); round-trips exactly with the text form.
#pragma once

#include <string>

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir {

std::string graphToJson(const Graph& g);  // compacted, 1-space indented, trailing newline
Expected<Graph> parseGirJson(const std::string& text, const std::string& fileName = "<input>");
// Text or JSON by content (a leading '{' means JSON).
Expected<Graph> parseGirAny(const std::string& text, const std::string& fileName);
Expected<Graph> loadGirFile(const std::string& path);

}  // namespace gir
