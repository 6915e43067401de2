// Validation of a parsed .asck kernel (docs/ascend.md, "Input and output format"): memory reach, tile indices in range for every
// iteration, tile references only on tiled buffers, no sync lines in inputs, flag IDs within the target.
#pragma once

#include "codegen/ascend/asck/AsckProgram.h"
#include "core/Expected.h"

namespace gir::ascend {

// text: the file's source, for caret lines in the messages.
Status validateInput(const Program& p, const std::string& text);
// Outputs may hold sync lines; their flag IDs must be below flagsPerPair.
Status validateOutput(const Program& p, const std::string& text, int flagsPerPair);

}  // namespace gir::ascend
