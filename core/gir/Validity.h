// One call that decides whether a GIR-Graph is valid: it verifies, the memory-model checker finds
// nothing, and it runs (docs/gir.md, "Interpreter and validity"). Used by `gir check`, the step API and the tests.
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
  // What is wrong, on one line: the verifier's error, the run's, or the first finding (and how
  // many more); empty when valid. For messages that carry it inside a longer sentence.
  std::string problem() const;
};

ValidityReport checkValidity(const Graph& g, const TensorMap& inputs);

// Graphs whose live buffers hold more elements than this are not run by the interpreter in checked
// mode: the step API checks them symbolically (verifier and memory-model checker on the affine
// forms, SymbolicCheck.h), at a cost independent of their size (docs/scale.md).
constexpr int64_t kInterpretedElements = int64_t{1} << 22;
bool interpretable(const Graph& g);

}  // namespace gir
