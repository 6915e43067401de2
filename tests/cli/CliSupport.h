// Running the `gir` binary from the cli test area (GIR_EXE is defined for that target only).
#pragma once

#include <string>

#include "tests/support/TestSupport.h"

namespace gir::test {

// Runs `gir ARGS`, returns stdout+stderr and sets `code` to the exit status.
inline std::string runGir(const std::string& args, int& code) {
  std::string out;
  code = runCommand(std::string(GIR_EXE) + " " + args, out);
  return out;
}

}  // namespace gir::test
