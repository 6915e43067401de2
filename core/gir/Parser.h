// The one parser of the GIR text form; errors carry file:line:col and a caret line.
#pragma once

#include <string>

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir {

Expected<Graph> parseGirText(const std::string& text, const std::string& fileName = "<input>");

}  // namespace gir
