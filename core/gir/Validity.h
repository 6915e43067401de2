// One call that decides whether a GIR-Graph is valid: it verifies, the memory-model checker finds
// nothing, and it runs (design.md section 4). Used by `gir check`, the step API and the tests.
#pragma once

#include <string>

#include "core/gir/Graph.h"
#include "core/gir/Interpreter.h"
#include "core/gir/MemoryChecker.h"

namespace gir {

struct ValidityReport {
  bool verified = false;
  std::string verifyError;       // when !verified
  MemoryCheckReport memory;      // when verified
  std::string runError;          // interpreter error, if any
  TensorMap outputs;             // outputs on `inputs`
  bool valid() const { return verified && memory.clean() && runError.empty(); }
  std::string str() const;       // human summary, one finding per line
};

ValidityReport checkValidity(const Graph& g, const TensorMap& inputs);

}  // namespace gir
