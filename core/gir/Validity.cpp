// Verifier, then the checked run (the checker wraps the interpreter, so one run gives both).
#include "core/gir/Validity.h"

#include "core/gir/Verifier.h"

namespace gir {

std::string ValidityReport::str() const {
  if (!verified) return "verify: " + verifyError + "\n";
  std::string out = "verify: ok\n";
  if (!runError.empty()) return out + "run: " + runError + "\n";
  out += memory.clean() ? "memory model: ok\n" : "memory model: " + std::to_string(memory.total) + " finding(s)\n" + memory.str();
  return out;
}

std::string ValidityReport::problem() const {
  if (!verified) return "verify: " + verifyError;
  if (!runError.empty()) return "run: " + runError;
  return memory.summary();
}

ValidityReport checkValidity(const Graph& g, const TensorMap& inputs) {
  ValidityReport r;
  if (auto st = verifyGraph(g); !st) {
    r.verifyError = st.error().str();
    return r;
  }
  r.verified = true;
  MemoryModelOutput out = checkMemoryModelWithOutputs(g, inputs);
  if (!out.report) {
    r.runError = out.report.error().str();
    return r;
  }
  r.memory = std::move(*out.report);
  r.outputs = std::move(out.outputs);
  return r;
}

bool interpretable(const Graph& g) {
  int64_t elements = 0;
  for (const auto& b : g.buffers())
    if (!b.erased) elements += b.numel();
  return elements <= kInterpretedElements;
}

}  // namespace gir
