// `gir opt FILE [--greedy] [--rule NAME --site N] [--list] [--trace OUT.json] [--replay TRACE.json]
//   [--print-after-each] [--verify-each] [--debug-rewrites] [--target T] [-o OUT]`: the rewrite
//   stepper, headless. --debug-rewrites prints on stderr why each candidate anchor of the final graph
//   gave its rule no site (docs/rewrites.md, "Matching").
#include <iostream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "core/gir/Json.h"
#include "core/gir/Printer.h"
#include "core/gir/Verifier.h"
#include "rewrite/GreedyOptimizer.h"

namespace gir::cli {

namespace {

std::optional<HardwareDesc> hardwareFor(const Graph& g, const Args& args) {
  std::string name = args.option("target", g.target);
  if (name.empty()) return std::nullopt;
  auto hw = loadHardwareByName(name);
  if (!hw) return std::nullopt;
  return *hw;
}

void printStep(const StepRecord& r, size_t n, bool printGraphAfter, const Graph& g) {
  std::cout << "step " << n << ": " << r.rule << " site " << r.siteIndex << " [" << r.siteKey << "]\n  " << r.explanation
            << "\n  dram bytes " << r.costBefore.dramBytes << " -> " << r.costAfter.dramBytes << ", kernels "
            << r.costBefore.kernels << " -> " << r.costAfter.kernels << ", modelled " << r.costBefore.modelledUs << " -> "
            << r.costAfter.modelledUs << " us" << (r.verified ? ", verified" : "") << "\n";
  if (printGraphAfter) std::cout << printGraph(g) << "\n";
}

// Every applied step; with graphs, the graph after each step, reached by undoing to the start and
// redoing one step at a time (the stepper's records restore each state exactly).
void printSteps(Stepper& st, bool withGraphs) {
  size_t applied = st.position();
  if (withGraphs)
    while (st.undo()) {
    }
  for (size_t i = 0; i < applied; ++i) {
    if (withGraphs) st.redo();
    printStep(st.history()[i], i + 1, withGraphs, st.graph());
  }
}

// Every rule's refusals on the graph: "rule: node #N (the node): reason", one per line, on stderr.
void printRefusals(const Stepper& st) {
  auto refusals = matchRefusals(st.rules(), st.graph());
  std::cerr << "match refusals: " << refusals.size() << "\n";
  for (const auto& r : refusals)
    std::cerr << "  " << r.rule << ": node #" << r.anchor.value << " (" << describeNode(st.graph(), r.anchor) << "): " << r.reason << "\n";
}

int listCandidates(const Stepper& st) {
  auto cands = st.candidates();
  std::cout << cands.size() << " applicable rewrite(s):\n";
  for (const auto& c : cands)
    std::cout << "  " << c.rule->name() << " --site " << c.siteIndex << "  d(dram bytes) " << c.predictedDeltaDramBytes
              << "  d(modelled) " << c.predictedDeltaUs << " us\n    " << c.explanation << "\n";
  return kExitOk;
}

}  // namespace

int runOpt(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"rule", "site", "trace", "replay", "target", "o", "seed"},
                        {"greedy", "print-after-each", "verify-each", "list", "quiet", "debug-rewrites"});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1) return reportBadInput(makeError("usage: gir opt FILE [--greedy | --rule NAME --site N | --list] ..."));
  auto g = loadGirFile(args->positional[0]);
  if (!g) return reportBadInput(g.error());
  if (auto st = verifyGraph(*g); !st) return reportBadInput(st.error());
  if (!args->option("target").empty() && !loadHardwareByName(args->option("target")))
    return reportBadInput(loadHardwareByName(args->option("target")).error());
  auto seed = integerOption(*args, "seed", 1);
  if (!seed) return reportBadInput(seed.error());
  auto site = integerOption(*args, "site", 0);
  if (!site) return reportBadInput(site.error());
  Stepper st(*g, hardwareFor(*g, *args), args->has("verify-each"), static_cast<uint64_t>(*seed));
  std::cout << "before: " << st.cost().str() << "\n";
  if (args->has("list")) {
    if (args->has("debug-rewrites")) printRefusals(st);
    return listCandidates(st);
  }
  int code = kExitOk;
  if (args->hasOption("replay")) {
    auto text = readFile(args->option("replay"));
    if (!text) return reportBadInput(text.error());
    auto steps = parseTrace(*text, args->option("replay"));
    if (!steps) return reportBadInput(steps.error());
    if (auto r = replayTrace(st, *steps, args->option("replay")); !r) {
      std::cerr << r.error().str() << "\n";
      code = kExitFinding;
    }
  }
  if (args->hasOption("rule")) {
    auto rec = st.apply(args->option("rule"), static_cast<size_t>(*site));
    if (!rec) {
      std::cerr << rec.error().str() << "\n";
      return kExitFinding;
    }
  }
  if (args->has("greedy")) {
    GreedyResult r = runGreedy(st);
    std::cout << "greedy: " << r.steps << " step(s), " << stopReasonName(r.stop) << "\n";
    if (r.stop == StopReason::StepFailed) {
      std::cerr << r.failure << "\n";
      code = kExitFinding;
    }
  }
  if (args->has("print-after-each") || !args->has("quiet")) printSteps(st, args->has("print-after-each"));
  if (args->has("debug-rewrites")) printRefusals(st);
  std::cout << "after: " << st.cost().str() << "\n";
  if (args->hasOption("o")) {
    if (auto w = writeOutput(args->option("o", "-"), printGraph(st.graph())); !w) return reportBadInput(w.error());
  }
  if (args->hasOption("trace"))
    if (auto w = writeOutput(args->option("trace"), traceToJson(st.history(), st.position())); !w) return reportBadInput(w.error());
  return code;
}

}  // namespace gir::cli
