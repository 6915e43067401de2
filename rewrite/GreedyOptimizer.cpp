// Algorithm 1 over the step API, with a worklist: after a step only the nodes around what it changed
// are matched again (MLIR's greedy driver), so a run is about linear in the graph.
#include "rewrite/GreedyOptimizer.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <random>
#include <set>

#include "rewrite/SliceAnalysis.h"

namespace gir {

std::string_view stopReasonName(StopReason r) {
  switch (r) {
    case StopReason::Converged: return "converged";
    case StopReason::StepLimit: return "step limit";
    case StopReason::StepFailed: return "step failed";
    case StopReason::Cancelled: return "cancelled";
  }
  return "?";
}

namespace {

class Worklist {
 public:
  void push(NodeId n) {
    if (n.value >= queued_.size()) queued_.resize(n.value + 1, false);
    if (queued_[n.value]) return;
    queued_[n.value] = true;
    items_.push_back(n);
  }
  bool empty() const { return items_.empty(); }
  NodeId pop() {
    NodeId n = items_.front();
    items_.pop_front();
    queued_[n.value] = false;
    return n;
  }
  void shuffle(std::mt19937_64& rng) { std::shuffle(items_.begin(), items_.end(), rng); }

 private:
  std::deque<NodeId> items_;
  std::vector<bool> queued_;
};

// Nodes whose sites may have changed: the edited nodes and every node touching a buffer they touch.
void pushAffected(const Stepper& st, const StepRecord& rec, Worklist& wl) {
  const Graph& g = st.graph();
  const UseDef& ud = st.useDef();
  std::set<BufferId> buffers;
  auto note = [&](const Node& n) {
    for (SliceId s : n.inputs) buffers.insert(g.slice(s).buffer);
    for (SliceId s : n.outputs) buffers.insert(g.slice(s).buffer);
  };
  for (const Edit& e : rec.edits) {
    if (e.entity == Edit::Entity::Buffer) buffers.insert(BufferId(e.id));
    if (e.entity != Edit::Entity::Node) continue;
    note(std::get<Node>(e.before));
    note(std::get<Node>(e.after));
    if (!g.node(NodeId(e.id)).erased) wl.push(NodeId(e.id));
  }
  for (BufferId b : buffers)
    for (SliceId s : ud.slicesOfBuffer[b.value]) {
      for (NodeId n : ud.writers[s.value]) wl.push(n);
      for (NodeId n : ud.readers[s.value]) wl.push(n);
    }
}

// The site's index among all the rule's sites (what `gir opt --rule R --site N` and traces name).
size_t fullIndex(const Stepper& st, const RewriteRule& rule, const Site& site) {
  auto all = rule.match(st.graph(), st.useDef());
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].key() == site.key()) return i;
  return 0;
}

// Applies the phase's rules until none matches anywhere; `applied` tells whether any step ran.
bool runPhase(Stepper& st, GreedyPhase phase, const GreedyOptions& opt, std::mt19937_64& rng, GreedyResult& res, bool& applied) {
  std::vector<const RewriteRule*> rules;
  for (const auto& rule : st.rules())
    if (rule->phase() == phase) rules.push_back(rule.get());
  Worklist wl;
  for (uint32_t i = 0; i < st.graph().nodes().size(); ++i)
    if (!st.graph().nodes()[i].erased) wl.push(NodeId(i));
  if (opt.randomSiteOrder) wl.shuffle(rng);
  std::vector<Site> sites;
  // The capacity checks of sync-insertion schedule the whole graph; while no step changes it (its
  // editVersion), every anchor's match shares one schedule through the context (MatchContext.h).
  MatchContext ctx(st.graph(), st.useDef());
  while (!wl.empty()) {
    NodeId anchor = wl.pop();
    if (st.graph().node(anchor).erased) continue;
    for (const RewriteRule* rule : rules) {
      sites.clear();
      rule->matchAt(ctx, anchor, sites);
      if (sites.empty()) continue;
      if (res.steps >= opt.maxSteps) {
        res.stop = StopReason::StepLimit;
        return false;
      }
      if (!st.mayStep()) {
        res.stop = StopReason::Cancelled;
        return false;
      }
      size_t pick = opt.randomSiteOrder ? std::uniform_int_distribution<size_t>(0, sites.size() - 1)(rng) : 0;
      size_t index = st.checked() ? fullIndex(st, *rule, sites[pick]) : pick;
      if (auto done = st.applySiteInPlace(*rule, sites[pick], index); !done) {
        // The gate may turn between mayStep above and the step's own question (a cancel set from another
        // thread): that refusal is a cancel too, not a failed step.
        bool cancelled = done.error().message == kStepCancelled;
        res.stop = cancelled ? StopReason::Cancelled : StopReason::StepFailed;
        if (!cancelled) res.failure = done.error().str();
        return false;
      }
      ++res.steps;
      applied = true;
      pushAffected(st, st.history().back(), wl);
      break;
    }
  }
  return true;
}

}  // namespace

GreedyResult runGreedy(Stepper& st, const GreedyOptions& opt) {
  GreedyResult res;
  std::mt19937_64 rng(opt.seed);
  for (;;) {
    bool merged = false;
    for (GreedyPhase phase : kGreedyPhases) {
      bool applied = false;
      if (!runPhase(st, phase, opt, rng, res, applied)) return res;
      if (phase == GreedyPhase::Merge) merged = applied;
    }
    if (!merged) return res;  // a round without a merge leaves nothing new to insert or swap
  }
}

}  // namespace gir
