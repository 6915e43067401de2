// The pipeline, readable top to bottom (Halide's lower_impl): each stage edits the plan, then dumps it.
#include "codegen/ascend/SyncInsertion.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>

#include "codegen/ascend/AsckPrinter.h"
#include "codegen/ascend/AsckSimulator.h"
#include "codegen/ascend/AsckTrace.h"
#include "codegen/ascend/SyncAlloc.h"
#include "codegen/ascend/SyncDeps.h"
#include "codegen/ascend/SyncStages.h"

namespace gir::ascend {

const std::vector<std::string>& insertionStages() {
  static const std::vector<std::string> names = {"deps", "normalize", "virtual", "redundant", "parity", "merge", "physical"};
  return names;
}

namespace {

// All whole-run paths when there are at most `limit`, else all-then, all-else and `samples` seeded random ones.
std::vector<std::vector<char>> pathSet(const Program& p, int64_t limit, int samples) {
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

std::string render(const ProgramIndex& ix, const SyncPlan& plan, const std::string& stage,
                   const std::vector<std::string>& log) {
  std::string head = "# stage " + stage + " (virtual IDs: flag numbers are unbounded)\n";
  for (const auto& l : log) head += "# " + l + "\n";
  return head + printAsck(materialize(ix, plan));
}

void countVirtual(const SyncPlan& plan, InsertStats& st) {
  std::map<std::pair<int, int>, int> perPair;
  st.virtualIds = 0;
  for (const auto& f : plan.flags)
    if (f.alive) {
      ++st.virtualIds;
      st.maxVirtualPerPair = std::max(st.maxVirtualPerPair, ++perPair[{static_cast<int>(f.src), static_cast<int>(f.dst)}]);
    }
}

Program finalProgram(const ProgramIndex& ix, SyncPlan plan, const Assignment& a, InsertStats& st) {
  std::map<std::pair<int, int>, std::set<int>> used;
  for (auto& s : plan.syncs) {
    if (s.vid < 0) { ++st.barriers; continue; }
    s.op.id = a.color[s.vid];
    used[{static_cast<int>(s.op.src), static_cast<int>(s.op.dst)}].insert(s.op.id);
  }
  for (const auto& [k, ids] : used) st.physicalMaxPerPair = std::max(st.physicalMaxPerPair, static_cast<int>(ids.size()));
  return materialize(ix, plan);
}

// Stages merge and physical: decide on a few representative runs, accept only what every judged run
// confirms. Two rounds of reverse pairs (rolled back if they deadlock), then barriers, which never disturb
// the assignment. afterFirstMerge renders the merge dump before any reverse pair exists.
Assignment allocateIds(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan, int flags, InsertStats& st,
                       std::vector<std::string>& mergeLog, std::vector<std::string>& physLog,
                       const std::function<void()>& afterFirstMerge) {
  auto paths = pathSet(ix.program(), 16, 8);
  auto judged = pathSet(ix.program(), 256, 64);
  const int reverseRounds = 2;
  Assignment a;
  for (int round = 0; round < reverseRounds + 3; ++round) {
    st.rounds = round + 1;
    if (round <= reverseRounds) {
      auto ml = mergeUntilFits(ix, deps, plan, flags);
      st.merges += static_cast<int>(ml.size());
      mergeLog.insert(mergeLog.end(), ml.begin(), ml.end());
      if (round == 0) afterFirstMerge();
      a = assignPhysical(ix, plan, flags, paths);
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

// Nominal cycles of a program, the mean of its all-then and all-else runs.
double nominalCycles(const Program& p, const Target& t) {
  double sum = 0;
  for (bool then : {true, false}) sum += static_cast<double>(simulate(buildTrace(p, t, [then] { return then; }), t.syncCost, nullptr).makespan);
  return sum / 2;
}

// The portfolio: flags only where they beat a barrier after every pipe change, which is always
// correct (a plan whose merges demote hundreds of flags to barriers can lose to it).
void keepFaster(const Program& normalized, const Target& t, InsertResult& res) {
  res.stats.flagCycles = nominalCycles(res.output, t);
  Program barriers = barrierAllBaseline(normalized);
  res.stats.barrierAllCycles = nominalCycles(barriers, t);
  if (res.stats.barrierAllCycles >= res.stats.flagCycles) return;
  res.output = std::move(barriers);
  res.stats.keptBarrierAll = true;
}

}  // namespace

Expected<InsertResult> insertSync(const Program& input, const InsertOptions& opt) {
  InsertResult res;
  auto t0 = std::chrono::steady_clock::now();
  double dumpMs = 0;
  auto dump = [&](const std::string& name, auto&& make) {
    if (!opt.keepDumps) return;
    auto a = std::chrono::steady_clock::now();
    res.dumps.push_back({name, make()});
    dumpMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
  };
  Program norm = normalizeCfg(input);
  ProgramIndex ix(norm);
  std::vector<Dep> deps = analyzeDeps(ix);
  res.stats.deps = static_cast<int>(deps.size());
  dump("deps", [&] { return dumpDeps(ix, deps); });
  SyncPlan plan;
  dump("normalize", [&] { return render(ix, plan, "normalize", {"every if has an else; loops: preheader/exit = slots around them"}); });
  insertVirtual(ix, deps, plan);
  dump("virtual", [&] { return render(ix, plan, "virtual", {}); });
  std::vector<std::string> removed;
  if (opt.removeRedundant) removed = removeRedundant(ix, plan);
  countVirtual(plan, res.stats);
  dump("redundant", [&] { return render(ix, plan, "redundant", removed); });
  auto parityLog = fixParity(ix, plan);
  dump("parity", [&] { return render(ix, plan, "parity", parityLog); });
  res.stats.maxLiveVirtual = maxLive(ix, plan);
  if (!opt.mergeVirtual && res.stats.maxLiveVirtual > opt.flags)
    return makeError("one flag per dependency needs " + std::to_string(res.stats.maxLiveVirtual) +
                     " live flags on one pipe pair; the target has " + std::to_string(opt.flags));
  std::vector<std::string> mergeLog, physLog;
  Assignment a = allocateIds(ix, deps, plan, opt.flags, res.stats, mergeLog, physLog,
                             [&] { dump("merge", [&] { return render(ix, plan, "merge", mergeLog); }); });
  res.output = finalProgram(ix, plan, a, res.stats);
  if (opt.target) keepFaster(norm, *opt.target, res);
  res.stats.millis = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() - dumpMs;
  dump("physical", [&] {
    std::string head = "# stage physical\n";
    for (const auto& l : physLog) head += "# " + l + "\n";
    return head + printAsck(res.output);
  });
  return res;
}

static void barrierBlock(std::vector<Stmt>& b) {
  std::vector<Stmt> out;
  int prevPipe = -2;  // -2: unknown (block start)
  for (auto& s : b) {
    if (s.kind == StmtKind::Instr) {
      int pipe = static_cast<int>(s.instr.pipe);
      if (prevPipe != pipe) {
        Stmt bar;
        bar.kind = StmtKind::Sync;
        bar.sync.kind = SyncKind::Barrier;
        bar.sync.all = true;
        out.push_back(bar);
      }
      prevPipe = pipe;
    } else {
      barrierBlock(s.body);
      barrierBlock(s.elseBody);
      prevPipe = -2;
    }
    out.push_back(std::move(s));
  }
  b = std::move(out);
}

Program barrierAllBaseline(const Program& input) {
  Program p = input;
  barrierBlock(p.body);
  numberStmts(p);
  return p;
}

}  // namespace gir::ascend
