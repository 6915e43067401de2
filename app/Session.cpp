// The document behind the window: loading, lowering, the step API and the Ascend analysis.
#include "app/Session.h"

#include <QtConcurrent/QtConcurrentRun>

#include "codegen/gpu/GpuRun.h"
#include "core/gir/Json.h"
#include "core/gir/Verifier.h"
#include "core/onnx/OnnxImporter.h"
#include "rewrite/GraphEditor.h"
#include "search/GirSearch.h"
#include "search/ModelPipeline.h"

namespace gir::app {

// The model pipeline's lowering (search/ModelPipeline.h) without its greedy step: the user steps from here.
Expected<search::LoweredSubgraph> lowerSubgraph(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw) {
  search::CompileOptions co;
  co.greedy = false;
  auto compiled = search::compileSubgraph(g, sub, hw, co);
  if (!compiled) return compiled.takeError();
  return std::move(compiled->lowered);
}

// This machine's kind, not an H100 on a CPU-only machine (issue #18, point 1, item 6).
static HardwareDesc defaultHardware() {
  auto hw = loadHardwareByName(gpu::defaultTargetForThisMachine());
  if (hw) return *hw;
  HardwareDesc fallback;
  fallback.name = "unknown";
  return fallback;
}

Session::Session(QObject* parent) : QObject(parent), hw_(defaultHardware()) { checkPool_.setMaxThreadCount(1); }

Session::~Session() {
  // Workers hold copies only, but their finish handlers and progress posts name this object.
  cancelGreedy();
  if (greedyWatcher_) greedyWatcher_->waitForFinished();
  checkPool_.clear();
  checkPool_.waitForDone();
  if (predictionWatcher_) predictionWatcher_->waitForFinished();
}

Status Session::setHardware(HardwareDesc hw) {
  if (model_) {
    auto pre = compute::preprocess(*model_, hw);
    if (!pre) return pre.takeError();
    pre_ = std::move(*pre);
  }
  cancelLowering();  // its subgraph is of the old preprocessing
  hw_ = std::move(hw);
  Q_EMIT hardwareChanged();
  if (model_) Q_EMIT modelChanged();
  return success();
}

Status Session::openModel(const std::string& path) {
  auto imported = search::importModel(path, hw_);
  if (!imported) return imported.takeError();
  cancelLowering();
  model_ = std::move(imported->model);
  pre_ = std::move(imported->pre);
  modelPath_ = path;
  subgraph_ = -1;
  Q_EMIT modelChanged();
  return success();
}

// The lowering's error as the user reads it: the model file, the subgraph and the search's reason.
static Diagnostic loweringError(Diagnostic d, const std::string& modelPath, int index) {
  d.location.file = modelPath;
  d.message = "subgraph " + std::to_string(index) + " cannot be lowered yet: " + d.message;
  return d;
}

Graph Session::graphAfterSteps(size_t steps) const {
  Graph g = stepper_->graph();
  const auto& h = stepper_->history();
  steps = std::min(steps, h.size());
  for (size_t i = stepper_->position(); i > steps; --i) undoEdits(g, h[i - 1].edits);
  for (size_t i = stepper_->position(); i < steps; ++i) redoEdits(g, h[i].edits);
  return g;
}

Status Session::openLoweredSubgraph(search::LoweredSubgraph lowered, int index) {
  Graph g = lowered.gir;
  if (auto st = setGir(std::move(g), modelPath_ + " subgraph " + std::to_string(index)); !st) return st;
  lowered_ = std::move(lowered);
  subgraph_ = index;
  return success();
}

Status Session::selectSubgraph(int index) {
  if (!model_ || index < 0 || index >= static_cast<int>(pre_->subgraphs.size()))
    return makeError("there is no memory-bound subgraph " + std::to_string(index));
  auto lowered = lowerSubgraph(*model_, pre_->subgraphs[index], hw_);
  if (!lowered) return loweringError(lowered.takeError(), modelPath_, index);
  return openLoweredSubgraph(std::move(*lowered), index);
}

Status Session::startSelectSubgraph(int index) {
  if (!model_ || index < 0 || index >= static_cast<int>(pre_->subgraphs.size()))
    return makeError("there is no memory-bound subgraph " + std::to_string(index));
  int round = ++loweringRound_;
  loweringSubgraph_ = index;
  Q_EMIT loweringStarted(index);
  using Result = std::shared_ptr<Expected<search::LoweredSubgraph>>;
  auto* watcher = new QFutureWatcher<Result>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, round, index] {
    watcher->deleteLater();
    if (round != loweringRound_) return;  // cancelled, or another model, hardware or lowering since
    loweringSubgraph_ = -1;
    Result r = watcher->result();
    Status st = *r ? openLoweredSubgraph(std::move(**r), index) : Status(loweringError(r->error(), modelPath_, index));
    Q_EMIT loweringFinished(static_cast<bool>(st), st ? QString() : QString::fromStdString(st.error().str()));
  });
  watcher->setFuture(QtConcurrent::run([g = *model_, sub = pre_->subgraphs[index], hw = hw_] {
    return std::make_shared<Expected<search::LoweredSubgraph>>(lowerSubgraph(g, sub, hw));
  }));
  return success();
}

void Session::cancelLowering() {
  if (loweringSubgraph_ < 0) return;
  ++loweringRound_;
  loweringSubgraph_ = -1;
  Q_EMIT loweringFinished(false, QString());
}

Status Session::openLowered(search::LoweredSubgraph lowered, int subgraph, const std::string& origin) {
  Graph g = lowered.gir;
  if (auto st = setGir(std::move(g), origin); !st) return st;
  lowered_ = std::move(lowered);
  subgraph_ = subgraph;
  return success();
}

Status Session::openGir(const std::string& path) {
  auto g = loadGirFile(path);
  if (!g) return g.takeError();
  if (auto st = setGir(std::move(*g), path); !st) return st;
  lowered_.reset();
  subgraph_ = -1;
  return success();
}

// The session's stepper never checks a step itself (that would put the interpreter on the UI
// thread): checked mode runs the same checks on a worker after each step (SessionChecks.cpp).
void Session::rebuildStepper(const Graph& g) {
  stepper_ = std::make_unique<Stepper>(g, girHw_, false);
  previous_ = stepper_->graph();
  originalCost_ = stepper_->cost();
  states_.clear();
  for (auto* w : checkWatchers_) {  // checks of the old graph: their results are dropped
    w->disconnect(this);
    w->deleteLater();
  }
  checkWatchers_.clear();
  lastFailure_.clear();
  refreshCandidates();
}

Status Session::setGir(Graph g, const std::string& origin) {
  if (auto st = verifyGraph(g); !st) {
    Diagnostic d = st.takeError();
    if (d.location.file.empty()) d.location.file = origin;
    return d;
  }
  cancelLowering();  // another graph wins over a lowering still running
  // The graph's own target, as `gir opt` chooses it; no hardware means bytes-only costs.
  girHw_.reset();
  if (!g.target.empty())
    if (auto hw = loadHardwareByName(g.target)) girHw_ = *hw;
  cancelGreedy();  // its result belongs to the old graph (the generation tells)
  lastGreedy_ = {};
  lastGreedyCancelled_ = false;  // the banner spoke of the old graph's run (issue #18, point 1, item 5)
  original_ = g;
  girOrigin_ = origin;
  ++generation_;
  reference_ = std::make_shared<CheckReference>(original_);
  rebuildStepper(g);
  Q_EMIT girChanged();
  return success();
}

void Session::setCheckedMode(bool on) {
  if (on == checked_) return;
  checked_ = on;
  if (!stepper_ || !on) return;
  size_t first = 0;
  while (first < states_.size() && states_[first].badge == Badge::Verified) ++first;
  if (first == states_.size()) return;
  queueChecks(first);
  Q_EMIT stepsChecked();
}

// Each candidate applied to its own copy of the graph with the app's own rule objects (the stepper's
// may be gone by the time this runs): what Stepper::candidates(true) computes, off the UI thread.
static std::vector<Session::Prediction> predictAll(const Graph& g, const std::optional<HardwareDesc>& hw,
                                                   const std::vector<std::pair<std::string, Site>>& sites) {
  auto rules = allRules();
  const HardwareDesc* h = hw ? &*hw : nullptr;
  GraphCost now = computeCost(g, h);
  std::vector<Session::Prediction> out(sites.size());
  for (size_t i = 0; i < sites.size(); ++i) {
    const RewriteRule* rule = findRule(rules, sites[i].first);
    if (!rule) continue;
    CostChange d = predictCostChange(g, now, h, *rule, sites[i].second);
    out[i] = {d.us, d.dramBytes};
  }
  return out;
}

void Session::refreshCandidates() {
  ++predictionRound_;
  candidates_ = stepper_ ? stepper_->candidates(false) : std::vector<Candidate>{};
  predictionsReady_ = candidates_.empty();
  if (predictionsReady_) return;
  std::vector<std::pair<std::string, Site>> sites;
  for (const Candidate& c : candidates_) sites.emplace_back(std::string(c.rule->name()), c.site);
  int round = predictionRound_;
  auto* watcher = new QFutureWatcher<std::vector<Prediction>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, round] {
    if (predictionWatcher_ == watcher) predictionWatcher_ = nullptr;
    watcher->deleteLater();
    takePredictions(round, watcher->result());
  });
  predictionWatcher_ = watcher;
  watcher->setFuture(QtConcurrent::run([g = stepper_->graph(), hw = girHw_, sites = std::move(sites)] { return predictAll(g, hw, sites); }));
}

void Session::takePredictions(int round, const std::vector<Prediction>& p) {
  if (round != predictionRound_ || predictionsReady_ || p.size() != candidates_.size()) return;  // stale
  for (size_t i = 0; i < p.size(); ++i) {
    candidates_[i].predictedDeltaUs = p[i].deltaUs;
    candidates_[i].predictedDeltaDramBytes = p[i].deltaDramBytes;
  }
  predictionsReady_ = true;
  Q_EMIT candidatesPredicted();
}

void Session::waitForPredictions() {
  if (predictionsReady_ || !predictionWatcher_) return;
  predictionWatcher_->waitForFinished();
  takePredictions(predictionRound_, predictionWatcher_->result());
}

Expected<StepRecord> Session::applyCandidate(size_t i) {
  if (!stepper_ || i >= candidates_.size()) return makeError("no rewrite candidate " + std::to_string(i));
  if (greedyRunning()) return makeError("the greedy run is still going; cancel it or wait for it to finish");
  const Candidate& c = candidates_[i];
  std::string explanation = c.explanation;
  Graph before = stepper_->graph();
  auto rec = stepper_->applySite(*c.rule, c.site, c.siteIndex);
  if (!rec) {
    lastFailure_ = std::string(c.rule->name()) + " at site " + std::to_string(c.siteIndex) + " failed: " + rec.error().str() +
                   "\nwhy the rule applied here: " + explanation;
    Q_EMIT girChanged();
    return rec;
  }
  lastFailure_.clear();
  size_t step = stepper_->position() - 1;
  appendStates(step, checked_ ? Badge::Checking : Badge::Unchecked);
  if (checked_) queueChecks(step);
  previous_ = std::move(before);
  refreshCandidates();
  Q_EMIT girChanged();
  return rec;
}

void Session::appendStates(size_t from, Badge badge) {
  states_.resize(from);
  for (size_t i = from; i < stepper_->history().size(); ++i) states_.push_back({nextSerial_++, badge});
}

bool Session::undo() {
  if (!stepper_ || greedyRunning()) return false;
  Graph before = stepper_->graph();
  if (!stepper_->undo()) return false;
  previous_ = std::move(before);
  refreshCandidates();
  Q_EMIT girChanged();
  return true;
}

bool Session::redo() {
  if (!stepper_ || greedyRunning()) return false;
  Graph before = stepper_->graph();
  if (!stepper_->redo()) return false;
  previous_ = std::move(before);
  refreshCandidates();
  Q_EMIT girChanged();
  return true;
}

void Session::jumpTo(size_t position) {
  if (!stepper_ || greedyRunning() || position == stepper_->position()) return;
  Graph before = stepper_->graph();
  while (stepper_->position() > position && stepper_->undo()) {}
  while (stepper_->position() < position && stepper_->redo()) {}
  previous_ = std::move(before);
  refreshCandidates();
  Q_EMIT girChanged();
}

Status Session::replay(const std::string& traceJson, const std::string& fileName) {
  if (!stepper_) return makeError("no GIR-Graph is open to replay a trace on");
  if (greedyRunning()) return makeError("the greedy run is still going; cancel it or wait for it to finish");
  size_t first = stepper_->position();
  Status st = replayTrace(*stepper_, traceJson, fileName);
  if (stepper_->position() > first) {
    appendStates(first, checked_ ? Badge::Checking : Badge::Unchecked);
    if (checked_) queueChecks(first);
  }
  previous_ = stepper_->graph();
  refreshCandidates();
  Q_EMIT girChanged();
  return st;
}

GraphCost Session::cost() const {
  size_t p = stepper_->position();
  return p > 0 ? stepper_->history()[p - 1].costAfter : originalCost_;
}

std::vector<double> Session::costCurve(bool dramBytes) const {
  std::vector<double> out;
  if (!stepper_) return out;
  auto value = [&](const GraphCost& c) { return dramBytes ? static_cast<double>(c.dramBytes) : c.modelledUs; };
  const auto& h = stepper_->history();
  if (h.empty()) {
    out.push_back(value(originalCost_));
    return out;
  }
  out.push_back(value(h.front().costBefore));
  for (const StepRecord& r : h) out.push_back(value(r.costAfter));
  return out;
}

void Session::setAscend(viz::AscendKernel kernel, const std::string& origin) {
  ascend_ = std::make_unique<viz::AscendKernel>(std::move(kernel));
  ascendPath_ = origin;
  Q_EMIT ascendChanged();
}

Status Session::openAscend(const std::string& path) {
  auto k = viz::loadAscendKernel(path);
  if (!k) return k.takeError();
  ascend_ = std::make_unique<viz::AscendKernel>(std::move(*k));
  ascendPath_ = path;
  Q_EMIT ascendChanged();
  return success();
}

}  // namespace gir::app
