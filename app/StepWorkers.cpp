// Checks replay the steps' edits on a private copy; greedy runs on a private Stepper.
#include "app/StepWorkers.h"

#include "core/gir/Printer.h"
#include "core/gir/Validity.h"
#include "rewrite/Stepper.h"

namespace gir::app {

void CheckReference::compute() {
  std::call_once(once_, [this] {
    if (!interpretable(original_)) return;  // checked symbolically (Stepper.cpp verifyOutputs)
    inputs_ = randomInputs(original_, seed_);
    // As Stepper's checked mode: a graph the interpreter cannot run has no reference outputs, and
    // every check of its steps then reports the mismatch.
    if (auto out = interpret(original_, inputs_)) outputs_ = std::move(*out);
  });
}

const TensorMap& CheckReference::inputs() {
  compute();
  return inputs_;
}

const TensorMap& CheckReference::outputs() {
  compute();
  return outputs_;
}

std::vector<CheckOutcome> runChecks(CheckJob job, const std::shared_ptr<CheckReference>& reference) {
  std::vector<CheckOutcome> out;
  Graph& g = job.start;
  for (size_t i = 0; i < job.edits.size(); ++i) {
    std::string before = printGraph(g);
    redoEdits(g, job.edits[i]);
    CheckOutcome o{job.serials[i], true, ""};
    if (printGraph(g) == before) o = {job.serials[i], false, job.contexts[i] + " reported success but changed nothing"};
    else if (Status st = verifyOutputs(g, reference->inputs(), reference->outputs(), job.contexts[i]); !st)
      o = {job.serials[i], false, st.error().message};
    out.push_back(std::move(o));
    if (!out.back().ok) break;
  }
  return out;
}

GreedyOutcome runGreedyOnCopy(Graph g, std::optional<HardwareDesc> hw, bool checked, const std::function<bool(size_t)>& keepGoing) {
  GreedyOutcome out;
  Stepper st(std::move(g), std::move(hw), checked);
  st.setStepGate(keepGoing);
  out.result = runGreedy(st);
  out.steps = st.history();
  out.graph = st.graph();
  return out;
}

}  // namespace gir::app
