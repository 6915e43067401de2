// Session's work on worker threads for the stepper: checked mode's checks after each step and the
// greedy run. Results come back to the UI thread through QFutureWatcher and are dropped when the
// graph they belong to is gone (the generation changed).
#include <QtConcurrent/QtConcurrentRun>

#include "app/Session.h"

namespace gir::app {

static std::string stepContext(const StepRecord& r) {
  return "rule '" + r.rule + "' at site " + std::to_string(r.siteIndex) + " (" + r.siteKey + ")";
}

// The job starts from a copy of the current graph walked back (or forward) to step `first`: the
// stepper's graph keeps the slots of every entity a step ever added, so the steps' edits replay on
// it (a copy from before a step would lack the nodes the step adds).
int Session::backgroundJobs() const {
  return QThreadPool::globalInstance()->activeThreadCount() + checkPool_.activeThreadCount();
}

void Session::queueChecks(size_t first) {
  const auto& h = stepper_->history();
  Graph start = stepper_->graph();
  for (size_t i = stepper_->position(); i > first; --i) undoEdits(start, h[i - 1].edits);
  for (size_t i = stepper_->position(); i < first && i < h.size(); ++i) redoEdits(start, h[i].edits);
  CheckJob job{std::move(start), {}, {}, {}};
  for (size_t i = first; i < stepper_->history().size() && i < states_.size(); ++i) {
    const StepRecord& r = stepper_->history()[i];
    job.edits.push_back(r.edits);
    job.contexts.push_back(stepContext(r));
    job.serials.push_back(states_[i].serial);
    if (states_[i].badge != Badge::Verified) states_[i].badge = Badge::Checking;
  }
  if (job.edits.empty()) return;
  auto* watcher = new QFutureWatcher<std::vector<CheckOutcome>>(this);
  int generation = generation_;
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    if (generation == generation_) takeChecks(watcher);
  });
  checkWatchers_.push_back(watcher);
  watcher->setFuture(QtConcurrent::run(&checkPool_, [job = std::move(job), ref = reference_]() mutable { return runChecks(std::move(job), ref); }));
}

void Session::takeChecks(QFutureWatcher<std::vector<CheckOutcome>>* watcher) {
  auto it = std::find(checkWatchers_.begin(), checkWatchers_.end(), watcher);
  if (it == checkWatchers_.end()) return;  // taken already (waitForChecks)
  checkWatchers_.erase(it);
  watcher->deleteLater();
  for (const CheckOutcome& o : watcher->result()) {
    // The step may be gone (undone and replaced, or taken back after an earlier failure).
    auto at = std::find_if(states_.begin(), states_.end(), [&](const StepState& s) { return s.serial == o.serial; });
    if (at == states_.end()) continue;
    if (o.ok) {
      at->badge = Badge::Verified;
      continue;
    }
    at->badge = Badge::Failed;
    takeBackFrom(static_cast<size_t>(at - states_.begin()), o.problem);
    return;
  }
  Q_EMIT stepsChecked();
}

// A step whose check failed is not kept: the stepper goes back to just before it and forgets it and
// every later step (they were built on it); the banner names the rule's reason and what broke.
void Session::takeBackFrom(size_t step, const std::string& why) {
  const StepRecord& r = stepper_->history()[step];
  lastFailure_ = stepContext(r) + " failed its check and was taken back" +
                 (step + 1 < stepper_->history().size() ? " with the " + std::to_string(stepper_->history().size() - step - 1) + " step(s) after it" : "") +
                 ": " + why + "\nwhy the rule applied here: " + r.explanation;
  std::string failure = lastFailure_;
  std::string trace = traceToJson(stepper_->history(), step);
  std::vector<StepState> kept(states_.begin(), states_.begin() + static_cast<std::ptrdiff_t>(step));
  Graph before = stepper_->graph();
  stepper_ = std::make_unique<Stepper>(original_, girHw_, false);
  (void)replayTrace(*stepper_, trace, "<session>");
  states_ = std::move(kept);
  lastFailure_ = failure;
  previous_ = std::move(before);
  refreshCandidates();
  Q_EMIT stepsChecked();
  Q_EMIT girChanged();
}

void Session::waitForChecks() {
  while (!checkWatchers_.empty()) {
    auto* w = checkWatchers_.front();
    w->waitForFinished();
    takeChecks(w);
  }
}

bool Session::startGreedy() {
  if (!stepper_ || greedyRunning()) return false;
  lastFailure_.clear();
  greedyCancel_ = std::make_shared<std::atomic<bool>>(false);
  auto* watcher = new QFutureWatcher<GreedyOutcome>(this);
  int generation = generation_;
  size_t position = stepper_->position();
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, position] {
    if (greedyWatcher_ == watcher) greedyWatcher_ = nullptr;
    watcher->deleteLater();
    takeGreedy(generation, position, watcher->result());
  });
  greedyWatcher_ = watcher;
  auto cancel = greedyCancel_;
  auto progress = [this, cancel](size_t made) {
    if (cancel->load()) return false;
    // Posted to the UI thread; dropped if the session is gone by then.
    QMetaObject::invokeMethod(this, [this, made] { Q_EMIT greedyProgress(static_cast<int>(made)); }, Qt::QueuedConnection);
    return true;
  };
  watcher->setFuture(QtConcurrent::run([g = stepper_->graph(), hw = girHw_, checked = checked_, progress] {
    return runGreedyOnCopy(g, hw, checked, progress);
  }));
  return true;
}

void Session::cancelGreedy() {
  if (greedyCancel_) greedyCancel_->store(true);
}

void Session::takeGreedy(int generation, size_t position, GreedyOutcome outcome) {
  if (generation != generation_ || !stepper_ || stepper_->position() != position) {
    Q_EMIT greedyFinished();
    return;
  }
  lastGreedy_ = outcome.result;
  lastGreedyCancelled_ = outcome.result.stop == StopReason::Cancelled;
  lastFailure_ = outcome.result.stop == StopReason::StepFailed ? outcome.result.failure : std::string();
  Graph before = stepper_->graph();
  std::vector<bool> verified;
  for (const StepRecord& r : outcome.steps) verified.push_back(r.verified);
  stepper_->adoptSteps(std::move(outcome.steps), std::move(outcome.graph));
  states_.resize(position);
  for (bool v : verified) states_.push_back({nextSerial_++, v ? Badge::Verified : Badge::Unchecked});
  previous_ = std::move(before);
  refreshCandidates();
  Q_EMIT girChanged();
  Q_EMIT greedyFinished();
}

}  // namespace gir::app
