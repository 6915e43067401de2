// The app's document (docs/app.md, "Layers"): the loaded model and its preprocessing, the hardware
// description, the GIR-Graph under the rewrite stepper, and the Ascend kernel. Widgets read it and
// call its step API; they edit nothing themselves. Every failure comes back as a Diagnostic.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>
#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "rewrite/GreedyOptimizer.h"
#include "app/StepWorkers.h"
#include "rewrite/Stepper.h"
#include "search/templates/LoweredSubgraph.h"
#include "viz/AscendTimeline.h"

namespace gir::app {

// The lowering of one memory-bound subgraph to a GIR-Graph: the one place the app calls it. The GIR
// planner's template search picks one template per op; the app opens that per-op lowering (kernels
// joined by device syncs) so the user steps the rewrites the search ran.
Expected<search::LoweredSubgraph> lowerSubgraph(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw);

class Session : public QObject {
  Q_OBJECT

 public:
  struct Prediction {  // a candidate's predicted cost change
    double deltaUs = 0;
    int64_t deltaDramBytes = 0;
  };
  // A step's validity badge. Checked mode checks a step on a worker thread after it is applied:
  // Checking until the verifier, the memory-model checker and the interpreter have passed.
  enum class Badge { Unchecked, Checking, Verified, Failed };

  explicit Session(QObject* parent = nullptr);
  ~Session() override;

  // ---- hardware ----
  const HardwareDesc& hardware() const { return hw_; }
  Status setHardware(HardwareDesc hw);  // re-preprocesses the model when one is open

  // ---- model ----
  Status openModel(const std::string& path);
  bool hasModel() const { return model_.has_value(); }
  const compute::Graph& model() const { return *model_; }
  const compute::PreprocessResult& preprocessed() const { return *pre_; }
  const std::string& modelPath() const { return modelPath_; }
  // Lowers subgraph `index` and puts its GIR-Graph under the stepper.
  Status selectSubgraph(int index);
  // The same with the template search on a worker (issue #18: the UI froze for seconds): loweringStarted
  // now, loweringFinished(ok, error) when the graph is open or the lowering failed. cancelLowering drops
  // the running search's result (the search itself runs to its end in the background, a few seconds at
  // most); a new model, hardware or graph does too.
  Status startSelectSubgraph(int index);
  void cancelLowering();
  bool loweringRunning() const { return loweringSubgraph_ >= 0; }
  int selectedSubgraph() const { return subgraph_; }

  // ---- GIR-Graph and the step API ----
  Status openGir(const std::string& path);
  Status setGir(Graph g, const std::string& origin);
  // Opens a lowering the user built in the plan explorer (its own choice of templates and kernels).
  Status openLowered(search::LoweredSubgraph lowered, int subgraph, const std::string& origin);
  bool hasGir() const { return stepper_ != nullptr; }
  int generation() const { return generation_; }  // bumped by every new graph (not by steps)
  const Graph& graph() const { return stepper_->graph(); }
  const Graph& original() const { return original_; }
  // The graph before the last step, undo, redo or jump (for the diff view); equals graph() at first.
  const Graph& previous() const { return previous_; }
  const Stepper& stepper() const { return *stepper_; }
  const std::string& girOrigin() const { return girOrigin_; }
  const std::optional<search::LoweredSubgraph>& lowered() const { return lowered_; }
  // The current graph's cost: the last applied step's recorded cost, so the UI thread does not
  // re-cost the graph after every step (computeCost on big buffers takes milliseconds).
  GraphCost cost() const;
  bool checkedMode() const { return checked_; }
  // On: every later step is checked, and the history's unchecked steps are checked now (worker).
  void setCheckedMode(bool on);
  Badge badge(size_t step) const { return step < states_.size() ? states_[step].badge : Badge::Unchecked; }
  bool checksPending() const { return !checkWatchers_.empty(); }
  // Worker threads busy with the app's own jobs (layouts, plans, predictions, greedy, checks): Measure
  // waits for these before timing, since on a small machine they take the cores the kernels are timed on.
  int backgroundJobs() const;
  void waitForChecks();  // blocks until every queued check has reported (tests, benchmarks)
  // Later checks compare with `reference`'s outputs instead of the original graph's (same input
  // buffers). Tests use a reference that disagrees to drive a failing check; nothing else should.
  void checkAgainst(Graph reference) { reference_ = std::make_shared<CheckReference>(std::move(reference)); }

  // The applicable rewrites; their predicted cost changes are computed on a worker thread (one graph
  // copy per candidate is too slow for the UI thread on big graphs) and arrive with
  // candidatesPredicted(); until then predictedDelta* are 0 and predictionsReady() is false.
  const std::vector<Candidate>& candidates() const { return candidates_; }
  bool predictionsReady() const { return predictionsReady_; }
  void waitForPredictions();  // blocks until the current candidates have their predictions
  // Applies candidate `i` (unchecked; checked mode then checks it on a worker thread, and a step
  // whose check fails is taken back with its successors, lastFailure() naming the rule's
  // explanation and what broke). Fails at once for a stale site or while greedy runs.
  Expected<StepRecord> applyCandidate(size_t i);
  bool undo();
  bool redo();
  void jumpTo(size_t position);  // undo/redo until `position` steps are applied
  // The greedy run from the current position on a worker thread (checked mode verifies every step
  // there); greedyProgress while it runs, greedyFinished when its steps are in the history.
  // Stepping is refused meanwhile. Cancel keeps the steps made so far.
  bool startGreedy();
  void cancelGreedy();
  bool greedyRunning() const { return greedyWatcher_ != nullptr; }
  const GreedyResult& lastGreedy() const { return lastGreedy_; }
  bool lastGreedyCancelled() const { return lastGreedyCancelled_; }
  Status replay(const std::string& traceJson, const std::string& fileName);  // a saved trace, step by step
  const std::string& lastFailure() const { return lastFailure_; }
  // The graph after the first `steps` steps of the history (0: the original), undone or redone on a
  // copy of the current one; for the pass-by-pass IR diff.
  Graph graphAfterSteps(size_t steps) const;
  // The modelled time (or DRAM bytes without hardware) after 0..history().size() steps.
  std::vector<double> costCurve(bool dramBytes) const;
  const std::optional<HardwareDesc>& girHardware() const { return girHw_; }

  // ---- Ascend ----
  Status openAscend(const std::string& path);
  // A kernel made elsewhere (the Ascend tab's lowering of the open GIR-Graph); `origin` names it.
  void setAscend(viz::AscendKernel kernel, const std::string& origin);
  const viz::AscendKernel* ascend() const { return ascend_.get(); }
  const std::string& ascendPath() const { return ascendPath_; }

 Q_SIGNALS:
  void modelChanged();
  void girChanged();    // a new graph or a step: canvas, cost and history refresh
  void hardwareChanged();
  void ascendChanged();
  void candidatesPredicted();
  void stepsChecked();               // badges changed (a check passed or failed)
  void greedyProgress(int steps);    // steps the running greedy has made
  void greedyFinished();
  void loweringStarted(int subgraph);
  void loweringFinished(bool ok, const QString& error);  // error empty when ok or cancelled

 private:
  void refreshCandidates();
  Status openLoweredSubgraph(search::LoweredSubgraph lowered, int index);
  void takePredictions(int round, const std::vector<Prediction>& p);
  void rebuildStepper(const Graph& g);
  void queueChecks(size_t first);  // checks steps first..history end on a worker
  void takeChecks(QFutureWatcher<std::vector<CheckOutcome>>* watcher);
  void takeBackFrom(size_t step, const std::string& why);
  void takeGreedy(int generation, size_t position, GreedyOutcome outcome);
  void appendStates(size_t from, Badge badge);

  struct StepState {
    uint64_t serial = 0;
    Badge badge = Badge::Unchecked;
  };

  HardwareDesc hw_;
  std::optional<compute::Graph> model_;
  std::optional<compute::PreprocessResult> pre_;
  std::string modelPath_;
  int subgraph_ = -1;
  std::unique_ptr<Stepper> stepper_;
  std::optional<HardwareDesc> girHw_;
  std::optional<search::LoweredSubgraph> lowered_;
  Graph original_, previous_;
  GraphCost originalCost_;
  std::string girOrigin_;
  bool checked_ = true;
  int generation_ = 0;
  std::vector<Candidate> candidates_;
  bool predictionsReady_ = true;
  int predictionRound_ = 0;
  QFutureWatcher<std::vector<Prediction>>* predictionWatcher_ = nullptr;
  std::string lastFailure_;
  std::vector<StepState> states_;  // one per history entry
  uint64_t nextSerial_ = 1;
  std::shared_ptr<CheckReference> reference_;
  QThreadPool checkPool_;  // one thread: checks run in step order
  std::vector<QFutureWatcher<std::vector<CheckOutcome>>*> checkWatchers_;
  QFutureWatcher<GreedyOutcome>* greedyWatcher_ = nullptr;
  int loweringSubgraph_ = -1;  // the subgraph startSelectSubgraph is lowering, -1 for none
  int loweringRound_ = 0;      // bumped to drop a running lowering's result
  std::shared_ptr<std::atomic<bool>> greedyCancel_;
  GreedyResult lastGreedy_;
  bool lastGreedyCancelled_ = false;
  std::unique_ptr<viz::AscendKernel> ascend_;  // held by pointer: its trace points into its program
  std::string ascendPath_;
};

}  // namespace gir::app
