// The stepper's work that runs off the UI thread: the deferred check of steps (checked mode: the
// verifier, the memory-model checker and the interpreter against the original graph's outputs, run
// after the step so the step itself stays fast) and the greedy run. Plain functions over copies: a
// worker never touches the session's stepper, whose graph the canvas reads.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/gir/Graph.h"
#include "core/gir/Interpreter.h"
#include "core/hw/HardwareDesc.h"
#include "rewrite/GreedyOptimizer.h"

namespace gir::app {

// The original graph's random inputs and reference outputs, computed once by the first check that
// needs them (the same seed and values as Stepper's own checked mode). Thread-safe.
class CheckReference {
 public:
  explicit CheckReference(Graph original, uint64_t seed = 1) : original_(std::move(original)), seed_(seed) {}
  const TensorMap& inputs();
  const TensorMap& outputs();

 private:
  void compute();
  std::once_flag once_;
  Graph original_;
  uint64_t seed_;
  TensorMap inputs_, outputs_;
};

// Steps to check in order, starting from the graph before the first of them.
struct CheckJob {
  Graph start;
  std::vector<std::vector<Edit>> edits;  // per step
  std::vector<std::string> contexts;     // per step: "rule 'R' at site N (key)"
  std::vector<uint64_t> serials;         // per step: the session's id of the step
};

struct CheckOutcome {
  uint64_t serial = 0;
  bool ok = false;
  std::string problem;  // when not ok: what broke
};

// One outcome per step up to and including the first that fails (later steps build on it).
std::vector<CheckOutcome> runChecks(CheckJob job, const std::shared_ptr<CheckReference>& reference);

struct GreedyOutcome {
  GreedyResult result;
  std::vector<StepRecord> steps;  // every step made, to adopt into the session's stepper
  Graph graph;                    // the graph they led to
};

// The greedy optimizer on a copy of the graph, checked (every step verified on the way) or not.
// `keepGoing` is asked before each step with the steps made so far; false cancels the run there.
GreedyOutcome runGreedyOnCopy(Graph g, std::optional<HardwareDesc> hw, bool checked, const std::function<bool(size_t)>& keepGoing);

}  // namespace gir::app
