// GIR -> .asck end to end (FromGir.h): lower, check the lowering against the interpreter, insert set/wait
// for the target's flag count, and judge the inserted program with the oracle.
#include "codegen/ascend/FromGir.h"

namespace gir::ascend {

static Expected<FromGirRun> lowerOnce(const Graph& g, const FromGirOptions& opt, const Target& target,
                                      const OracleOptions& oracle) {
  auto low = lowerGirToAsck(g, opt);
  if (!low) return low.takeError();
  if (auto st = checkLowering(g, *low); !st) return st.takeError();
  InsertOptions ins;
  ins.flags = target.flags;
  auto res = insertSync(low->program, ins);
  if (!res) return res.takeError();
  FromGirRun run{std::move(*low), std::move(*res), {}};
  run.report = runOracle(run.inserted.output, target, oracle);
  return run;
}

Expected<FromGirRun> lowerInsertAndJudge(const Graph& g, const FromGirOptions& opt, const Target& target,
                                         const OracleOptions& oracle) {
  auto run = lowerOnce(g, opt, target, oracle);
  if (!run || !opt.keepFasterBuffering || !run->lowering.layout.doubleBuffered || run->inserted.stats.merges == 0 ||
      !run->report.correct)
    return run;
  // The flag budget was binding: the second slot adds live dependencies, and merged flags can serialize more
  // than the slot overlaps. Keep whichever simulates faster (a violation is never traded away).
  FromGirOptions single = opt;
  single.doubleBuffer = false;
  auto alt = lowerOnce(g, single, target, oracle);
  if (!alt || !alt->report.correct || alt->report.cyclesMean >= run->report.cyclesMean) return run;
  alt->lowering.notes.push_back("double buffering dropped: with " + std::to_string(target.flags) +
                                " flags per pipe pair it simulates " + std::to_string(static_cast<int64_t>(run->report.cyclesMean)) +
                                " cycles, one slot " + std::to_string(static_cast<int64_t>(alt->report.cyclesMean)));
  return alt;
}

}  // namespace gir::ascend
