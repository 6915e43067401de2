// The app's document (design.md section 11): the loaded model and its preprocessing, the hardware
// description, the GIR-Graph under the rewrite stepper, and the Ascend kernel. Widgets read it and
// call its step API; they edit nothing themselves. Every failure comes back as a Diagnostic.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <memory>
#include <optional>
#include <string>

#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "rewrite/GreedyOptimizer.h"
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
  int selectedSubgraph() const { return subgraph_; }

  // ---- GIR-Graph and the step API ----
  Status openGir(const std::string& path);
  Status setGir(Graph g, const std::string& origin);
  bool hasGir() const { return stepper_ != nullptr; }
  int generation() const { return generation_; }  // bumped by every new graph (not by steps)
  const Graph& graph() const { return stepper_->graph(); }
  const Graph& original() const { return original_; }
  // The graph before the last step, undo, redo or jump (for the diff view); equals graph() at first.
  const Graph& previous() const { return previous_; }
  const Stepper& stepper() const { return *stepper_; }
  const std::string& girOrigin() const { return girOrigin_; }
  const std::optional<search::LoweredSubgraph>& lowered() const { return lowered_; }
  GraphCost cost() const { return stepper_->cost(); }
  bool checkedMode() const { return checked_; }
  void setCheckedMode(bool on);  // rebuilds the stepper on the current graph's original

  // The applicable rewrites; their predicted cost changes are computed on a worker thread (one graph
  // copy per candidate is too slow for the UI thread on big graphs) and arrive with
  // candidatesPredicted(); until then predictedDelta* are 0 and predictionsReady() is false.
  const std::vector<Candidate>& candidates() const { return candidates_; }
  bool predictionsReady() const { return predictionsReady_; }
  void waitForPredictions();  // blocks until the current candidates have their predictions
  // Applies candidate `i`; on failure the graph is unchanged and lastFailure() holds the rule's
  // explanation and what broke.
  Expected<StepRecord> applyCandidate(size_t i);
  bool undo();
  bool redo();
  void jumpTo(size_t position);  // undo/redo until `position` steps are applied
  GreedyResult runGreedy();      // from the current position; history then holds every step
  Status replay(const std::string& traceJson, const std::string& fileName);  // a saved trace, step by step
  const std::string& lastFailure() const { return lastFailure_; }
  // The modelled time (or DRAM bytes without hardware) after 0..history().size() steps.
  std::vector<double> costCurve(bool dramBytes) const;
  const std::optional<HardwareDesc>& girHardware() const { return girHw_; }

  // ---- Ascend ----
  Status openAscend(const std::string& path);
  const viz::AscendKernel* ascend() const { return ascend_.get(); }
  const std::string& ascendPath() const { return ascendPath_; }

 Q_SIGNALS:
  void modelChanged();
  void girChanged();    // a new graph or a step: canvas, cost and history refresh
  void hardwareChanged();
  void ascendChanged();
  void candidatesPredicted();

 private:
  void refreshCandidates();
  void takePredictions(int round, const std::vector<Prediction>& p);
  void rebuildStepper(const Graph& g);

  HardwareDesc hw_;
  std::optional<compute::Graph> model_;
  std::optional<compute::PreprocessResult> pre_;
  std::string modelPath_;
  int subgraph_ = -1;
  std::unique_ptr<Stepper> stepper_;
  std::optional<HardwareDesc> girHw_;
  std::optional<search::LoweredSubgraph> lowered_;
  Graph original_, previous_;
  std::string girOrigin_;
  bool checked_ = true;
  int generation_ = 0;
  std::vector<Candidate> candidates_;
  bool predictionsReady_ = true;
  int predictionRound_ = 0;
  QFutureWatcher<std::vector<Prediction>>* predictionWatcher_ = nullptr;
  std::string lastFailure_;
  std::unique_ptr<viz::AscendKernel> ascend_;  // held by pointer: its trace points into its program
  std::string ascendPath_;
};

}  // namespace gir::app
