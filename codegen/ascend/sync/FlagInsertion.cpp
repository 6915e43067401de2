// The pipeline, readable top to bottom (Halide's lower_impl): each stage edits the plan, then dumps it.
#include "codegen/ascend/sync/FlagInsertion.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "codegen/ascend/asck/AsckOracle.h"
#include "codegen/ascend/asck/AsckPrinter.h"
#include "codegen/ascend/asck/AsckSimulator.h"
#include "codegen/ascend/asck/AsckTrace.h"
#include "codegen/ascend/sync/SyncAlloc.h"
#include "codegen/ascend/sync/SyncDeps.h"
#include "codegen/ascend/sync/SyncStages.h"

namespace gir::ascend {

const std::vector<std::string>& insertionStages() {
  static const std::vector<std::string> names = {"deps", "normalize", "virtual", "redundant", "parity", "merge", "physical"};
  return names;
}

namespace {

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

// Insertion time: the whole portfolio, with the dumps' rendering when they were asked for.
Expected<InsertResult> finish(InsertResult res, std::chrono::steady_clock::time_point t0) {
  res.stats.millis = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

Program finalProgram(const ProgramIndex& ix, const SyncPlan& plan, const Assignment& a, InsertStats& st) {
  std::map<std::pair<int, int>, std::set<int>> used;
  for (const auto& s : plan.syncs) {
    if (s.vid < 0) { ++st.barriers; continue; }
    used[{static_cast<int>(s.op.src), static_cast<int>(s.op.dst)}].insert(a.color[s.vid]);
  }
  for (const auto& [k, ids] : used) st.physicalMaxPerPair = std::max(st.physicalMaxPerPair, static_cast<int>(ids.size()));
  return materializePhysical(ix, plan, a);
}

// A candidate's figures: the oracle's paths (the same ones `gir ascend-sim` judges on) at nominal
// latencies only, so the kept output is never slower than barrier-all by the oracle's own measure.
OracleReport nominalFigures(const Program& p, const Target& t) {
  OracleOptions o = normativeOracleOptions();
  o.latencySeeds = 0;
  o.robust = false;
  return runOracle(p, t, o);
}

// One pass of the heuristic, stage by stage, with a dump after each when asked.
Expected<InsertResult> runVariant(const Program& norm, const InsertOptions& opt, const InsertVariant& v) {
  InsertResult res;
  auto dump = [&](const std::string& name, auto&& make) {
    if (opt.keepDumps) res.dumps.push_back({name, make()});
  };
  ProgramIndex ix(norm);
  std::vector<Dep> deps = analyzeDeps(ix);
  res.stats.deps = static_cast<int>(deps.size());
  dump("deps", [&] { return dumpDeps(ix, deps); });
  SyncPlan plan;
  dump("normalize", [&] { return render(ix, plan, "normalize", {"every if has an else; loops: preheader/exit = slots around them"}); });
  insertVirtual(ix, deps, plan, v.liftIfs);
  dump("virtual", [&] { return render(ix, plan, "virtual", {}); });
  std::vector<std::string> removed;
  if (opt.removeRedundant) removed = removeRedundant(ix, plan, v.coverCross);
  countVirtual(plan, res.stats);
  dump("redundant", [&] { return render(ix, plan, "redundant", removed); });
  auto parityLog = fixParity(ix, plan);
  dump("parity", [&] { return render(ix, plan, "parity", parityLog); });
  res.stats.maxLiveVirtual = maxLive(ix, plan);
  if (!opt.mergeVirtual && res.stats.maxLiveVirtual > opt.flags)
    return makeError("one flag per dependency needs " + std::to_string(res.stats.maxLiveVirtual) +
                     " live flags on one pipe pair; the target has " + std::to_string(opt.flags));
  std::vector<std::string> mergeLog, physLog;
  AllocCounts counts;
  Assignment a = allocateIds(ix, deps, plan, opt.flags, IdPolicy{v.fewestReversePairs, false}, assignRuns(norm), counts, mergeLog, physLog,
                             [&] { dump("merge", [&] { return render(ix, plan, "merge", mergeLog); }); });
  res.stats.merges = counts.merges;
  res.stats.reversePairs = counts.reversePairs;
  res.stats.rounds = counts.rounds;
  res.output = finalProgram(ix, plan, a, res.stats);
  dump("physical", [&] {
    std::string head = "# stage physical (variant: " + v.name + ")\n";
    for (const auto& l : physLog) head += "# " + l + "\n";
    return head + printAsck(res.output);
  });
  return res;
}

// Past this many dependencies only the first variant runs: a fused transformer block (thousands of
// merges) takes seconds per pass.
constexpr int kPortfolioMaxDeps = 2000;

}  // namespace

const std::vector<InsertVariant>& insertVariants() {
  static const std::vector<InsertVariant> v = {
      {"cross-iteration cover, fewest reverse pairs", true, true, false},
      {"cross-iteration cover, fewest reverse pairs, lifted out of ifs", true, true, true},
      {"cross-iteration cover, first ID", true, false, false},
      {"forward cover only, first ID (the paper's rules)", false, false, false},
  };
  return v;
}

int paperRulesVariant() { return static_cast<int>(insertVariants().size()) - 1; }

std::string portfolioText(const InsertStats& s) {
  auto cycles = [](double c) { return std::to_string(static_cast<int64_t>(c + 0.5)); };
  std::string out = "kept: " + s.kept;
  std::string others;
  for (const auto& e : s.portfolio) {
    if (e.name == s.kept) out += " (" + cycles(e.cycles) + " nominal cycles)";
    else others += (others.empty() ? "" : "; ") + e.name + " " + (e.correct ? cycles(e.cycles) : "failed the oracle");
  }
  if (!others.empty()) out += "\n  also simulated: " + others;
  if (!s.portfolioNote.empty()) out += "\n  " + s.portfolioNote;
  return out + "\n";
}

namespace {

// Each variant judged on the oracle's paths at nominal latencies; the fastest correct one, if any.
std::optional<InsertResult> bestVariant(const Program& norm, const InsertOptions& opt, const Target& t,
                                        std::vector<PortfolioEntry>& entries, std::string& note, Status& error) {
  std::optional<InsertResult> best;
  bool hasIf = countPaths(norm.body, 2) > 1;  // every if makes a second path (loops run at least once)
  for (const InsertVariant& v : insertVariants()) {
    if (v.liftIfs && !hasIf) continue;  // the same placement as without lifting
    auto res = runVariant(norm, opt, v);
    if (!res) {
      error = res.takeError();
      return std::nullopt;
    }
    res->stats.kept = v.name;
    OracleReport fig = nominalFigures(res->output, t);
    entries.push_back({v.name, fig.cyclesMean, fig.correct});
    res->stats.flagCycles = fig.cyclesMean;
    int deps = res->stats.deps;
    if (fig.correct && (!best || fig.cyclesMean < best->stats.flagCycles)) best = std::move(*res);
    if (deps > kPortfolioMaxDeps) {
      note = "other variants skipped: " + std::to_string(deps) + " dependencies (more than " + std::to_string(kPortfolioMaxDeps) + ")";
      break;
    }
  }
  return best;
}

}  // namespace

// The portfolio (docs/ascend.md, "The portfolio"): each variant of the heuristic, then barrier-all,
// which is always correct; the fewest nominal cycles wins, ties to the earlier candidate.
Expected<InsertResult> insertSync(const Program& input, const InsertOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  Program norm = normalizeCfg(input);
  const auto& variants = insertVariants();
  if (opt.variant >= static_cast<int>(variants.size())) return makeError("no insertion variant " + std::to_string(opt.variant));
  if (opt.variant >= 0) {
    auto res = runVariant(norm, opt, variants[static_cast<size_t>(opt.variant)]);
    if (!res) return res.takeError();
    res->stats.kept = variants[static_cast<size_t>(opt.variant)].name;
    return finish(std::move(*res), t0);
  }
  const Target defaults;
  const Target& t = opt.target ? *opt.target : defaults;
  std::vector<PortfolioEntry> entries;
  std::string note;
  Status error = success();
  std::optional<InsertResult> best = bestVariant(norm, opt, t, entries, note, error);
  if (!error) return error.takeError();
  if (!best) {  // no variant passed the oracle: barrier-all, which always does (the first variant's stats)
    auto res = runVariant(norm, opt, variants.front());
    if (!res) return res.takeError();
    best = std::move(*res);
    best->stats.flagCycles = std::numeric_limits<double>::infinity();
  }
  InsertResult res = std::move(*best);
  // The barrier-all program this would output, simulated like the candidates (the oracle's own
  // barrier-all figure is dynamic and can be a few cycles lower at block starts).
  Program barriers = barrierAllBaseline(norm);
  res.stats.barrierAllCycles = nominalFigures(barriers, t).cyclesMean;
  entries.push_back({"barrier-all", res.stats.barrierAllCycles, true});
  if (res.stats.barrierAllCycles < res.stats.flagCycles) {
    res.output = std::move(barriers);
    res.stats.keptBarrierAll = true;
    res.stats.kept = "barrier-all";
    if (opt.keepDumps) res.dumps.back().text = "# stage physical (barrier-all, faster than every flag placement)\n" + printAsck(res.output);
  }
  res.stats.portfolio = std::move(entries);
  res.stats.portfolioNote = note;
  return finish(std::move(res), t0);
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
