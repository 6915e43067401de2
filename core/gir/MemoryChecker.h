// The memory-model checker: replays a run and reports races, write-write conflicts, scope
// violations and capacity overflows, each naming buffer, element, units and nodes (docs/gir.md, "The checker's happens-before").
#pragma once

#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/gir/Graph.h"
#include "core/gir/Interpreter.h"

namespace gir {

enum class FindingKind { Race, WriteWriteConflict, UninitializedRead, ScopeViolation, CapacityOverflow };

struct MemoryFinding {
  FindingKind kind;
  std::string buffer;
  int64_t element = -1;
  int64_t firstUnit = -1, secondUnit = -1;  // writer then reader/writer; for capacity: the instance
  NodeId firstNode, secondNode;
  std::string message;  // complete sentence naming all of the above
};

struct MemoryCheckReport {
  std::vector<MemoryFinding> findings;  // at most a few per kind; `total` counts all
  size_t total = 0;
  bool clean() const { return total == 0; }
  // The first finding that makes the graph wrong rather than too big for its target (anything but a
  // capacity overflow); null when there is none. Findings are kept per kind, so none is missed.
  const MemoryFinding* firstBeyondCapacity() const {
    for (const auto& f : findings)
      if (f.kind != FindingKind::CapacityOverflow) return &f;
    return nullptr;
  }
  std::string str() const;
  // The first finding and how many more, on one line; empty when clean.
  std::string summary() const;
};

std::string_view findingKindName(FindingKind k);

// Capacity of the unit- and block-shared levels, given per buffer the most bytes one scope instance
// touches: the peak of live bytes over the topological order (Liveness.h), one finding per level over
// its capacity. Shared by this checker and the symbolic one (SymbolicCheck.h).
std::vector<MemoryFinding> capacityFindings(const Graph& g, const std::vector<int64_t>& instanceBytes);

// Runs the interpreter on `inputs` with the checker attached.
Expected<MemoryCheckReport> checkMemoryModel(const Graph& g, const TensorMap& inputs);

// The same run, also keeping the interpreter's outputs.
struct MemoryModelOutput {
  Expected<MemoryCheckReport> report;
  TensorMap outputs;
};
MemoryModelOutput checkMemoryModelWithOutputs(const Graph& g, const TensorMap& inputs);

}  // namespace gir
