// The step API: list applicable rewrites with their predicted cost change, apply one, undo, redo,
// replay a saved trace. In checked mode every step is verified (verifier, memory-model checker,
// interpreter outputs equal to before) and a step that breaks validity fails naming rule and site.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <optional>
#include <string>
#include <vector>

#include "core/gir/Graph.h"
#include "core/gir/Interpreter.h"
#include "core/hw/HardwareDesc.h"
#include "rewrite/Cost.h"
#include "rewrite/RewriteRule.h"

namespace gir {

struct StepRecord {
  std::string rule;
  size_t siteIndex = 0;   // index among the rule's sites when it was applied
  std::string siteKey;
  std::string explanation;
  std::vector<Edit> edits;
  std::vector<NodeId> removedNodes, addedNodes, changedNodes;
  GraphCost costBefore, costAfter;
  bool verified = false;  // checked mode ran and passed
};

struct Candidate {
  const RewriteRule* rule;
  Site site;
  size_t siteIndex;
  std::string explanation;
  double predictedDeltaUs;  // modelled time after minus before (negative is better)
  int64_t predictedDeltaDramBytes;
};

// A site's predicted cost change: the rule applied to a copy of `g` and the copy costed, minus `now`
// (the cost of `g`). Zero when the rule refuses the site. What the stepper's candidates and the app's
// background predictions both report.
struct CostChange {
  double us = 0;             // modelled time after minus before (negative is better)
  int64_t dramBytes = 0;
};
CostChange predictCostChange(const Graph& g, const GraphCost& now, const HardwareDesc* hw, const RewriteRule& rule, const Site& site);

class Stepper {
 public:
  // `hw` may be null (cost then counts bytes, syncs and kernels only). checked: verify every step.
  // recordCosts: fill each StepRecord's cost before/after (a pass over the graph per step; bulk
  // greedy runs on big graphs turn it off and read the cost once at the end).
  Stepper(Graph g, std::optional<HardwareDesc> hw, bool checked, uint64_t seed = 1, bool recordCosts = true);

  const Graph& graph() const { return graph_; }
  const UseDef& useDef() const { return ud_; }
  bool checked() const { return checked_; }
  const std::vector<std::unique_ptr<RewriteRule>>& rules() const { return rules_; }
  GraphCost cost() const { return computeCost(graph_, hw_ ? &*hw_ : nullptr); }

  std::vector<Candidate> candidates(bool withPrediction = true) const;
  std::vector<Site> sitesOf(const RewriteRule& rule) const { return rule.match(graph_, ud_); }
  // Applies site `index` of rule `name`; fails (graph unchanged) when stale, unknown, or it breaks validity.
  Expected<StepRecord> apply(const std::string& ruleName, size_t index);
  Expected<StepRecord> applySite(const RewriteRule& rule, const Site& site, size_t index);
  // The same, leaving the record only in history() (no copy; for drivers that run many steps).
  Status applySiteInPlace(const RewriteRule& rule, const Site& site, size_t index);
  bool undo();
  bool redo();
  const std::vector<StepRecord>& history() const { return history_; }
  size_t position() const { return position_; }  // steps currently applied

  // Re-checks the current graph against the reference outputs of the original graph.
  Status verifyNow(const std::string& context) const;

  // Asked before every step with the number of steps in history so far (a driver's progress);
  // returning false refuses the step with kStepCancelled; the greedy driver asks `mayStep` first and
  // stops with StopReason::Cancelled, keeping the steps made so far. The gate runs on the thread that
  // runs the stepper.
  void setStepGate(std::function<bool(size_t historySize)> gate) { gate_ = std::move(gate); }
  bool mayStep() const { return !gate_ || gate_(history_.size()); }
  // Takes over the steps another Stepper made on a copy of this graph at the current position, and
  // the graph they led to (the app's greedy run on a worker thread; the copy holds the slots of
  // what the steps added, which this graph lacks). The redo tail is dropped.
  void adoptSteps(std::vector<StepRecord> steps, Graph result);

 private:
  static Status replayMatches(Graph replay, const std::vector<Edit>& edits, const std::string& after, const std::string& context);
  void replaceGraph(Graph g);  // a failed checked step's before-copy, or a worker's result
  Graph graph_;
  UseDef ud_;  // kept current by every edit; rebuilt after undo/redo
  std::optional<HardwareDesc> hw_;
  bool checked_;
  bool recordCosts_;
  std::vector<std::unique_ptr<RewriteRule>> rules_;
  TensorMap inputs_, reference_;
  std::vector<StepRecord> history_;
  size_t position_ = 0;
  std::function<bool(size_t)> gate_;
};

// What a step refused by the step gate fails with.
inline constexpr std::string_view kStepCancelled = "cancelled";

// The check checked mode runs after a step, callable by a driver that runs it elsewhere (the app,
// on a worker thread after the step): verifier, memory-model checker, and the interpreter's outputs
// on `inputs` allClose to `reference` (the original graph's outputs).
Status verifyOutputs(const Graph& g, const TensorMap& inputs, const TensorMap& reference, const std::string& context);

// Trace files: the applied steps as JSON ({"gir_trace": 1, "steps": [{"rule", "site", "key", ...}]}).
struct TraceStep {
  std::string rule;
  size_t site = 0;
  std::string key;  // decides which site when present; the index is then only a hint
};
std::string traceToJson(const std::vector<StepRecord>& steps, size_t count);
Expected<std::vector<TraceStep>> parseTrace(const std::string& traceJson, const std::string& fileName);
// Applies the steps in order; the first one that does not apply stops it, naming the step.
Status replayTrace(Stepper& stepper, const std::vector<TraceStep>& steps, const std::string& fileName);
Status replayTrace(Stepper& stepper, const std::string& traceJson, const std::string& fileName);

}  // namespace gir
