// GIR -> .asck end to end (FromGir.h): lower, check the lowering against the interpreter, insert set/wait
// for the target's flag count, and judge the inserted program with the oracle.
#include "codegen/ascend/FromGir.h"

namespace gir::ascend {

Expected<FromGirRun> lowerInsertAndJudge(const Graph& g, const FromGirOptions& opt, const Target& target,
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

}  // namespace gir::ascend
