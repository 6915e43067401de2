// Physical IDs by greedy colouring in walk order, with the happen-before check on representative runs.
#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "codegen/ascend/asck/AsckSimulator.h"
#include "codegen/ascend/sync/SyncAlloc.h"
#include "codegen/ascend/sync/SyncStages.h"

namespace gir::ascend {

namespace {

struct RunView {
  Trace trace;
  HappensBefore hb;
  std::map<int, std::vector<int>> opsOf;  // vid -> dyn set/wait ops in walk order
};

enum class Check { Ok, Interferes, Unordered };

// Can the flags in `vids` share one physical ID on this run? Collects unordered (wait, set) pids.
Check checkShare(const RunView& r, const std::vector<int>& vids, std::vector<std::pair<int, int>>& bad) {
  std::vector<int> seq;
  for (int v : vids) {
    auto it = r.opsOf.find(v);
    if (it != r.opsOf.end()) seq.insert(seq.end(), it->second.begin(), it->second.end());
  }
  std::sort(seq.begin(), seq.end());
  Check res = Check::Ok;
  for (size_t k = 0; k < seq.size(); ++k) {
    DynKind want = k % 2 == 0 ? DynKind::Set : DynKind::Wait;
    if (r.trace.ops[seq[k]].kind != want) return Check::Interferes;
    if (k % 2 == 0 && k > 0 && !r.hb.before(seq[k - 1], seq[k])) {
      bad.push_back({r.trace.ops[seq[k - 1]].stmt->tag, r.trace.ops[seq[k]].stmt->tag});
      res = Check::Unordered;
    }
  }
  return seq.size() % 2 == 0 ? res : Check::Interferes;
}

// Traces point into `m`, which must outlive them.
std::vector<RunView> buildRuns(const Program& m, const std::vector<std::vector<char>>& paths, std::string& error) {
  Target t;  // timing does not matter for happens-before
  std::vector<RunView> runs;
  for (const auto& d : paths) {
    ReplayChoice rc{&d, 0};
    RunView r;
    r.trace = buildTrace(m, t, std::ref(rc));
    r.hb = computeHappensBefore(r.trace);
    if (!r.hb.complete && error.empty()) error = "the virtual insertion deadlocks on a representative run";
    for (size_t i = 0; i < r.trace.ops.size(); ++i) {
      const DynOp& o = r.trace.ops[i];
      if (o.kind == DynKind::Set || o.kind == DynKind::Wait) r.opsOf[o.stmt->sync.id].push_back(static_cast<int>(i));
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

}  // namespace

Assignment assignPhysical(const ProgramIndex& ix, SyncPlan& plan, int n, const std::vector<std::vector<char>>& paths,
                          const IdPolicy& policy) {
  Assignment out;
  out.color.assign(plan.flags.size(), -1);
  std::string error;
  Program m = materialize(ix, plan);
  auto runs = buildRuns(m, paths, error);
  if (!error.empty()) out.log.push_back("warning: " + error);
  std::vector<int> ranks = walkRanks(ix, plan);
  std::map<int, int> first;  // vid -> first rank
  for (const auto& s : plan.syncs)
    if (s.vid >= 0 && (!first.count(s.vid) || ranks[s.pid] < first[s.vid])) first[s.vid] = ranks[s.pid];
  std::vector<int> order;
  for (const auto& [v, r] : first) order.push_back(v);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return first[a] < first[b]; });
  std::map<std::tuple<int, int, int>, std::vector<int>> users;  // (src, dst, id) -> vids
  std::map<std::pair<int, int>, int> perPair, assigned;  // flags of a pipe pair; how many have an ID
  for (int v : order) ++perPair[{static_cast<int>(plan.flags[v].src), static_cast<int>(plan.flags[v].dst)}];
  for (int v : order) {
    const VirtualFlag& f = plan.flags[v];
    std::pair<int, int> pair{static_cast<int>(f.src), static_cast<int>(f.dst)};
    int only = policy.distinctWhenFits && perPair[pair] <= n ? assigned[pair]++ : -1;
    int chosen = -1;
    std::vector<std::pair<int, int>> chosenBad;
    for (int c = 0; c < n && chosen < 0; ++c) {
      if (only >= 0 && c != only) continue;
      auto key = std::make_tuple(static_cast<int>(f.src), static_cast<int>(f.dst), c);
      std::vector<int> vids = users[key];
      vids.push_back(v);
      std::vector<std::pair<int, int>> bad;
      Check worst = Check::Ok;
      for (const auto& r : runs) {
        Check k = checkShare(r, vids, bad);
        if (k == Check::Interferes) { worst = k; break; }
        if (k == Check::Unordered) worst = k;
      }
      if (worst == Check::Ok) chosen = c;
      // Fallback: the ID needing the fewest reverse pairs. A free ID costs only the flag's own
      // unordered pairs; sharing one also serialises it with the other users.
      if (worst == Check::Unordered && (out.color[v] < 0 || (policy.fewestReversePairs && bad.size() < chosenBad.size()))) {
        out.color[v] = c;
        chosenBad = bad;
      }
    }
    if (chosen < 0 && out.color[v] >= 0) {
      chosen = out.color[v];
      out.unordered.insert(out.unordered.end(), chosenBad.begin(), chosenBad.end());
      out.log.push_back("flag " + std::to_string(v) + " -> ID " + std::to_string(chosen) +
                        " needs reverse set/wait pairs: " + std::to_string(chosenBad.size()) + " unordered wait/set");
    }
    if (chosen < 0) {
      out.log.push_back("flag " + std::to_string(v) + " finds no free physical ID");
      out.unordered.push_back({-1, v});
      continue;
    }
    out.color[v] = chosen;
    users[std::make_tuple(static_cast<int>(f.src), static_cast<int>(f.dst), chosen)].push_back(v);
    out.log.push_back("flag " + std::to_string(v) + " " + pipeName(f.src) + "->" + pipeName(f.dst) + " -> ID " +
                      std::to_string(chosen));
  }
  std::sort(out.unordered.begin(), out.unordered.end());
  out.unordered.erase(std::unique(out.unordered.begin(), out.unordered.end()), out.unordered.end());
  return out;
}

Program materializePhysical(const ProgramIndex& ix, SyncPlan plan, const Assignment& a) {
  for (auto& s : plan.syncs)
    if (s.vid >= 0) s.op.id = a.color[s.vid];
  return materialize(ix, plan);
}

std::vector<std::pair<int, int>> verifyPhysical(const ProgramIndex& ix, const SyncPlan& plan, const Assignment& a,
                                               const std::vector<std::vector<char>>& paths, bool& interferes) {
  interferes = false;
  Program m = materializePhysical(ix, plan, a);
  std::string error;
  auto runs = buildRuns(m, paths, error);
  std::vector<std::pair<int, int>> bad;
  for (const auto& r : runs) {
    for (size_t f = 0; f < r.trace.flags.size(); ++f) {
      const auto& sets = r.hb.setsOf[f];
      const auto& waits = r.hb.waitsOf[f];
      for (size_t k = 0; k + 1 < sets.size() && k < waits.size(); ++k) {
        interferes |= sets[k + 1] < waits[k];  // two IDs sharing it are live at once on this run
        if (!r.hb.before(waits[k], sets[k + 1]))
          bad.push_back({r.trace.ops[waits[k]].stmt->tag, r.trace.ops[sets[k + 1]].stmt->tag});
      }
    }
  }
  std::sort(bad.begin(), bad.end());
  bad.erase(std::unique(bad.begin(), bad.end()), bad.end());
  return bad;
}

namespace {

const PlacedSync* byPid(const SyncPlan& plan, int pid) {
  for (const auto& s : plan.syncs)
    if (s.pid == pid) return &s;
  return nullptr;
}

// Hoists a point out of the loops (levels >= from) of its block's enclosing statements.
Point lift(const ProgramIndex& ix, const Point& p, size_t from, bool after) {
  if (p.block.owner < 0) return p;
  const auto& path = ix.info(p.block.owner).path;
  for (size_t j = from; j < path.size(); ++j)
    if (ix.info(path[j]).stmt->kind == StmtKind::Loop)
      return Point{ix.info(path[j]).block, ix.info(path[j]).index + (after ? 1 : 0), after ? 10.0 : 20.0};
  return p;
}

}  // namespace

bool runsComplete(const ProgramIndex& ix, const SyncPlan& plan, const std::vector<std::vector<char>>& paths) {
  Program m = materialize(ix, plan);
  std::string error;
  buildRuns(m, paths, error);
  return error.empty();
}

std::vector<std::string> insertReversePairs(const ProgramIndex& ix, SyncPlan& plan,
                                            const std::vector<std::pair<int, int>>& unordered, bool barriersOnly) {
  std::vector<std::string> log;
  for (const auto& [wp, sp] : unordered) {
    if (wp < 0) {  // no ID at all for flag sp: demote it
      std::vector<Point> waits;
      for (const auto& s : plan.syncs)
        if (s.vid == sp && s.op.kind == SyncKind::Wait) waits.push_back(s.at);
      plan.removeFlag(sp);
      for (const auto& w : waits) plan.addBarrierAll(w);
      log.push_back("flag " + std::to_string(sp) + " replaced by pipe_barrier ALL");
      continue;
    }
    const PlacedSync* w = byPid(plan, wp);
    const PlacedSync* s = byPid(plan, sp);
    if (!w || !s) continue;
    Point wAt = w->at, sAt = s->at;
    Pipe q = w->op.dst, p = s->op.src;
    auto lw = ix.location(wAt), ls = ix.location(sAt);
    size_t lvl = 0;
    while (lvl < lw.size() && lvl < ls.size() && lw[lvl] == ls[lvl]) ++lvl;
    bool sameBlock = lvl < lw.size() && lvl < ls.size() && lw[lvl].first == ls[lvl].first;
    bool forward = sameBlock && lw[lvl].second < ls[lvl].second;
    int loop = -1;
    if (sameBlock && !forward && wAt.block.owner >= 0) {
      const auto& path = ix.info(wAt.block.owner).path;
      for (size_t j = 0; j < lvl && j < path.size(); ++j)
        if (ix.info(path[j]).stmt->kind == StmtKind::Loop) { loop = path[j]; break; }
    }
    if (barriersOnly || !sameBlock || (!forward && loop < 0)) {
      // Right after the wait: the next set follows it in program order, so the barrier orders them.
      plan.addBarrierAll(wAt, wp);
      log.push_back("pipe_barrier ALL after the wait of pid " + std::to_string(wp));
      continue;
    }
    int r = plan.newFlag(q, p, VKind::Reverse);
    VirtualFlag& f = plan.flags[r];
    plan.add(lift(ix, Point{wAt.block, wAt.slot, wAt.order + 0.5}, lvl, true), SyncKind::Set, f);
    plan.add(lift(ix, Point{sAt.block, sAt.slot, sAt.order - 0.5}, lvl, false), SyncKind::Wait, f);
    if (loop >= 0) {  // the set comes first in the loop: a credit in the preheader, drained at the exit
      f.loop = loop;
      const StmtInfo& L = ix.info(loop);
      plan.add(Point{L.block, L.index, 10}, SyncKind::Set, f);
      plan.add(Point{L.block, L.index + 1, 20}, SyncKind::Wait, f);
    }
    log.push_back("reverse flag " + std::to_string(r) + " " + pipeName(q) + "->" + pipeName(p) + (loop >= 0 ? " (cross-iteration)" : ""));
  }
  fixParity(ix, plan);
  return log;
}

std::vector<std::vector<char>> representativePaths(const Program& p, int64_t limit, int samples) {
  Target t;
  auto record = [&](std::function<bool()> pick) {
    std::vector<char> d;
    buildTrace(p, t, [&] { bool v = pick(); d.push_back(v); return v; });
    return d;
  };
  std::vector<std::vector<char>> out;
  if (countPaths(p.body, limit) <= limit) {
    std::vector<char> d = record([] { return true; });
    out.push_back(d);
    while (true) {
      while (!d.empty() && !d.back()) d.pop_back();
      if (d.empty()) break;
      d.back() = 0;
      size_t pos = 0;
      std::vector<char> prefix = d;
      d = record([&] { return pos < prefix.size() ? prefix[pos++] != 0 : true; });
      out.push_back(d);
    }
    return out;
  }
  out.push_back(record([] { return true; }));
  out.push_back(record([] { return false; }));
  std::mt19937_64 rng(42);
  for (int k = 0; k < samples; ++k) out.push_back(record([&] { return (rng() & 1) != 0; }));
  return out;
}


// Decide on a few representative runs, accept only what every judged run confirms. Two rounds of
// reverse pairs (rolled back if they deadlock), then barriers, which never disturb the assignment.
AssignRuns assignRuns(const Program& normalized) {
  return AssignRuns{representativePaths(normalized, 16, 8), representativePaths(normalized, 256, 64)};
}

Assignment allocateIds(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan, int flags,
                       const IdPolicy& policy, const AssignRuns& runs, AllocCounts& st,
                       std::vector<std::string>& mergeLog, std::vector<std::string>& physLog,
                       const std::function<void()>& afterFirstMerge) {
  auto paths = runs.decide;
  const auto& judged = runs.judged;
  const int reverseRounds = 2;
  Assignment a;
  for (int round = 0; round < reverseRounds + 3; ++round) {
    st.rounds = round + 1;
    if (round <= reverseRounds) {
      auto ml = mergeUntilFits(ix, deps, plan, flags);
      st.merges += static_cast<int>(ml.size());
      mergeLog.insert(mergeLog.end(), ml.begin(), ml.end());
      if (round == 0) afterFirstMerge();
      a = assignPhysical(ix, plan, flags, paths, policy);
      physLog.insert(physLog.end(), a.log.begin(), a.log.end());
    }
    bool interferes = false;
    auto unordered = a.unordered.empty() ? verifyPhysical(ix, plan, a, judged, interferes) : a.unordered;
    if (interferes && paths.size() < judged.size()) {  // decide again, on every judged run
      paths = judged;
      round = std::min(round, reverseRounds - 1) - 1;
      continue;
    }
    if (unordered.empty()) break;
    SyncPlan before = plan;
    auto rl = insertReversePairs(ix, plan, unordered, round >= reverseRounds);
    if (round < reverseRounds && !runsComplete(ix, plan, judged)) {  // reverse pairs that deadlock: barriers instead
      plan = before;
      rl = insertReversePairs(ix, plan, unordered, true);
    }
    for (const auto& l : rl) st.reversePairs += l.rfind("reverse flag", 0) == 0;
    physLog.insert(physLog.end(), rl.begin(), rl.end());
    a.unordered.clear();
  }
  return a;
}

}  // namespace gir::ascend
