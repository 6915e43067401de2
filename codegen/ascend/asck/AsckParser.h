// Parser for the .asck text format (docs/ascend.md, "Input and output format"). Errors carry file:line:col
// and the offending line with a caret under the column.
#pragma once

#include <string>

#include "codegen/ascend/asck/AsckProgram.h"
#include "core/Expected.h"

namespace gir::ascend {

// Parses one kernel. Sync lines are accepted here; validateInput() rejects them for inputs.
Expected<Program> parseAsck(const std::string& text, const std::string& fileName);
Expected<Program> loadAsck(const std::string& path);

// An error at (line, col) of `text`, with the source line and a caret appended to the message.
Diagnostic asckError(const std::string& file, const std::string& text, int line, int col, const std::string& msg);

}  // namespace gir::ascend
