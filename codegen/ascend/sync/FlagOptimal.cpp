// Branch and bound over the dependency flags' merge and barrier decisions (docs/ascend.md, "The exact
// search"). A node fixes the decisions of the first flags (ordered by pipe pair, then walk order); its
// bound simulates the plan with the rest kept as they are, with unbounded IDs and no reverse pairs,
// minus one sync cost per executed set or wait of the pipe pairs still undecided: a completion only
// adds orderings and operations, except that merging or demoting an undecided flag removes some of
// those operations, and each removed operation shortens any path by at most one sync cost.
#include "codegen/ascend/sync/FlagOptimal.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "codegen/ascend/asck/AsckOracle.h"
#include "codegen/ascend/asck/AsckSimulator.h"
#include "codegen/ascend/asck/AsckTrace.h"
#include "codegen/ascend/sync/SyncAlloc.h"
#include "codegen/ascend/sync/SyncDeps.h"
#include "codegen/ascend/sync/FlagInsertion.h"
#include "codegen/ascend/sync/SyncStages.h"

namespace gir::ascend {

namespace {

using Paths = std::vector<std::vector<char>>;
using PairKey = std::pair<int, int>;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

PairKey pairOf(const VirtualFlag& f) { return {static_cast<int>(f.src), static_cast<int>(f.dst)}; }

// Mean nominal makespan over the paths; with `slackPairs`, also the mean count of executed sets and
// waits of those pipe pairs. violation: some run breaks the contract at nominal latencies.
double meanMakespan(const Program& p, const Target& t, const Paths& paths, const std::set<PairKey>* slackPairs,
                    double* slackOps, bool* violation) {
  double sum = 0, ops = 0;
  for (const auto& d : paths) {
    ReplayChoice rc{&d, 0};
    Trace tr = buildTrace(p, t, std::ref(rc));
    SimResult r = simulate(tr, t.syncCost, nullptr);
    if (violation && r.violation.kind != ViolationKind::None) *violation = true;
    sum += static_cast<double>(r.makespan);
    if (!slackPairs) continue;
    for (const DynOp& o : tr.ops)
      if ((o.kind == DynKind::Set || o.kind == DynKind::Wait) && slackPairs->count({tr.flags[o.flag].src, tr.flags[o.flag].dst}))
        ops += 1;
  }
  double n = static_cast<double>(paths.size());
  if (slackOps) *slackOps = ops / n;
  return sum / n;
}

// One virtual placement: the plan every candidate starts from, and its flags in decision order.
struct Space {
  bool liftIfs = false;
  SyncPlan base;
  std::vector<int> order;
};

Space makeSpace(const ProgramIndex& ix, const std::vector<Dep>& deps, bool liftIfs) {
  Space s;
  s.liftIfs = liftIfs;
  insertVirtual(ix, deps, s.base, liftIfs);
  removeRedundant(ix, s.base, true);
  fixParity(ix, s.base);
  std::vector<int> ranks = walkRanks(ix, s.base);
  std::map<int, int> first;
  for (const auto& ps : s.base.syncs)
    if (ps.vid >= 0 && s.base.flags[ps.vid].alive && (!first.count(ps.vid) || ranks[ps.pid] < first[ps.vid])) first[ps.vid] = ranks[ps.pid];
  for (const auto& [v, r] : first) s.order.push_back(v);
  std::sort(s.order.begin(), s.order.end(), [&](int a, int b) {
    PairKey pa = pairOf(s.base.flags[a]), pb = pairOf(s.base.flags[b]);
    return pa != pb ? pa < pb : first[a] < first[b];
  });
  return s;
}

class Search {
 public:
  Search(const ProgramIndex& ix, const std::vector<Dep>& deps, const Target& t, const Paths& paths, const OptimalOptions& opt,
         OptimalResult& res)
      : ix_(ix), deps_(deps), t_(t), paths_(paths), opt_(opt), res_(res), runs_(assignRuns(ix.program())) {}

  void run(const Space& s) {
    space_ = &s;
    std::vector<GroupDecision> ds;
    dfs(ds);
  }
  bool exhausted() const { return res_.leaves >= opt_.maxLeaves; }

 private:
  void dfs(std::vector<GroupDecision>& ds);
  double bound(const std::vector<GroupDecision>& ds);
  void leaf(const std::vector<GroupDecision>& ds);
  std::string words(const std::vector<GroupDecision>& ds) const;

  const ProgramIndex& ix_;
  const std::vector<Dep>& deps_;
  const Target& t_;
  const Paths& paths_;
  const OptimalOptions& opt_;
  OptimalResult& res_;
  AssignRuns runs_;
  const Space* space_ = nullptr;
};

void Search::dfs(std::vector<GroupDecision>& ds) {
  if (exhausted()) return;
  const auto& order = space_->order;
  size_t i = ds.size();
  if (i == order.size()) return leaf(ds);
  if (opt_.useBound && bound(ds) >= res_.cycles) {
    ++res_.bounded;
    return;
  }
  int vid = order[i];
  PairKey pair = pairOf(space_->base.flags[vid]);
  ds.push_back({vid, -1, false});  // keep: a group of its own
  dfs(ds);
  for (size_t j = 0; j < i; ++j) {  // merge into an earlier kept flag of its pipe pair
    if (ds[j].into >= 0 || ds[j].barrier || pairOf(space_->base.flags[ds[j].vid]) != pair) continue;
    ds.back() = {vid, ds[j].vid, false};
    dfs(ds);
  }
  ds.back() = {vid, -1, true};  // pipe_barrier ALL at its waits
  dfs(ds);
  ds.pop_back();
}

double Search::bound(const std::vector<GroupDecision>& ds) {
  SyncPlan p = space_->base;
  std::vector<std::string> log;
  if (!applyGroupDecisions(ix_, deps_, p, ds, log)) {
    ++res_.infeasible;
    return kInfinity;
  }
  std::set<PairKey> undecided;
  for (size_t k = ds.size(); k < space_->order.size(); ++k) undecided.insert(pairOf(space_->base.flags[space_->order[k]]));
  double slack = 0;
  double m = meanMakespan(materialize(ix_, p), t_, paths_, &undecided, &slack, nullptr);
  return m - slack * t_.syncCost;
}

void Search::leaf(const std::vector<GroupDecision>& ds) {
  ++res_.leaves;
  SyncPlan p = space_->base;
  std::vector<std::string> log, mergeLog, physLog;
  if (!applyGroupDecisions(ix_, deps_, p, ds, log) || maxLive(ix_, p) > opt_.flags) {
    ++res_.infeasible;
    return;
  }
  AllocCounts counts;
  Assignment a = allocateIds(ix_, deps_, p, opt_.flags, IdPolicy{true, true}, runs_, counts, mergeLog, physLog, [] {});
  if (counts.merges > 0) {  // the completion merged: outside the space (its decisions must fit)
    ++res_.infeasible;
    return;
  }
  std::map<PairKey, int> perPair;
  for (const auto& f : p.flags)
    if (f.alive && ++perPair[pairOf(f)] > opt_.flags) res_.sharedIds = true;
  Program out = materializePhysical(ix_, p, a);
  bool violation = false;
  double m = meanMakespan(out, t_, paths_, nullptr, nullptr, &violation);
  if (violation) {
    ++res_.infeasible;
    return;
  }
  if (m >= res_.cycles) return;
  OracleOptions quick;
  quick.latencySeeds = 1;
  quick.robust = false;
  if (!runOracle(out, t_, quick).correct) {
    ++res_.infeasible;
    return;
  }
  res_.cycles = m;
  res_.output = std::move(out);
  res_.best = words(ds);
}

std::string Search::words(const std::vector<GroupDecision>& ds) const {
  int merged = 0, barriers = 0;
  for (const auto& d : ds) {
    merged += d.into >= 0;
    barriers += d.barrier;
  }
  return std::to_string(ds.size()) + " dependency flags" + (space_->liftIfs ? " lifted out of ifs" : "") + ": " +
         std::to_string(merged) + " merged, " + std::to_string(barriers) + " replaced by barriers";
}

}  // namespace

double searchPathsMakespan(const Program& input, const Program& output, const Target& target, int sampledPaths) {
  Paths paths = representativePaths(normalizeCfg(input), 4096, sampledPaths);
  return meanMakespan(output, target, paths, nullptr, nullptr, nullptr);
}

Expected<OptimalResult> searchOptimal(const Program& input, const OptimalOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  const Target defaults;
  const Target& t = opt.target ? *opt.target : defaults;
  Program norm = normalizeCfg(input);
  ProgramIndex ix(norm);
  std::vector<Dep> deps = analyzeDeps(ix);
  Paths paths = representativePaths(norm, 4096, opt.sampledPaths);
  OptimalResult res;
  res.paths = static_cast<int64_t>(paths.size());
  res.output = barrierAllBaseline(norm);
  res.barrierAll = res.cycles = meanMakespan(res.output, t, paths, nullptr, nullptr, nullptr);
  res.best = "barrier-all";
  for (const auto& d : paths) {  // the input without syncs, every conflict kept at zero cost
    ReplayChoice rc{&d, 0};
    res.ideal += static_cast<double>(idealMakespan(buildTrace(norm, t, std::ref(rc))));
  }
  res.ideal /= static_cast<double>(paths.size());
  res.proved = true;
  Search search(ix, deps, t, paths, opt, res);
  for (bool lift : {false, true}) {
    Space s = makeSpace(ix, deps, lift);
    res.flagsSearched = std::max(res.flagsSearched, static_cast<int>(s.order.size()));
    if (static_cast<int>(s.order.size()) > opt.maxFlags) {
      res.proved = false;
      res.reason = std::to_string(s.order.size()) + " dependency flags, more than the search's " + std::to_string(opt.maxFlags);
      continue;
    }
    search.run(s);
  }
  if (search.exhausted()) {
    res.proved = false;
    res.reason = "stopped after " + std::to_string(res.leaves) + " candidates";
  } else if (res.sharedIds && res.proved) {
    res.proved = false;
    res.reason = "some candidates share IDs, which the search does not enumerate";
  }
  OracleReport check = runOracle(res.output, t, normativeOracleOptions());
  if (!check.correct) return makeError("the exact search's best candidate fails the oracle: " + check.violation);
  res.millis = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

Expected<GapReport> measureGap(const Program& input, const Program& heuristicOutput, const Target& target,
                               const OptimalOptions& limits) {
  GapReport g;
  g.ids = target.flags;
  g.otherIds = target.flags == 4 ? 8 : 4;
  g.heuristic = searchPathsMakespan(input, heuristicOutput, target, limits.sampledPaths);
  for (int ids : {g.ids, g.otherIds}) {
    Target t = target;
    t.flags = ids;
    OptimalOptions o = limits;
    o.flags = ids;
    o.target = &t;
    auto r = searchOptimal(input, o);
    if (!r) return r.takeError();
    (ids == g.ids ? g.optimum : g.otherOptimum) = std::move(*r);
  }
  return g;
}

std::string gapText(const GapReport& g) {
  auto cycles = [](double c) { return std::to_string(static_cast<int64_t>(c + 0.5)); };
  auto line = [&](const OptimalResult& r, int ids) {
    std::string s = "  optimum with " + std::to_string(ids) + " IDs: " + cycles(r.cycles) + " cycles (" + r.best + "; " +
                    std::to_string(r.leaves) + " candidates judged, " + std::to_string(r.bounded) + " subtrees bounded away, " +
                    std::to_string(static_cast<int64_t>(r.millis)) + " ms)";
    s += r.proved ? ", proved" : ", not proved: " + r.reason;
    return s + "\n";
  };
  char pct[32];
  std::snprintf(pct, sizeof pct, "%+.1f %%", 100.0 * g.gap());
  std::string out = "exact search (" + std::to_string(g.optimum.paths) + " paths, nominal latencies):\n";
  out += "  heuristic: " + cycles(g.heuristic) + " cycles, " + pct + " over the optimum with " + std::to_string(g.ids) + " IDs\n";
  out += line(g.optimum, g.ids) + line(g.otherOptimum, g.otherIds);
  out += "  barrier-all: " + cycles(g.optimum.barrierAll) + " cycles; ideal (no placement beats it): " + cycles(g.optimum.ideal) + "\n";
  return out;
}

}  // namespace gir::ascend
