// `gir check`, `gir print`, `gir convert`: the GIR file jobs.
#include <iostream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "core/gir/Json.h"
#include "core/gir/Printer.h"
#include "core/gir/SymbolicCheck.h"
#include "core/gir/Validity.h"
#include "core/gir/Verifier.h"

namespace gir::cli {

namespace {

Expected<Graph> loadOne(const Args& args, const std::string& usage) {
  if (args.positional.size() != 1) return makeError("usage: " + usage);
  return loadGirFile(args.positional[0]);
}

void printOutputsSummary(const TensorMap& outputs) {
  for (const auto& [name, v] : outputs) {
    double sum = 0;
    for (float x : v) sum += x;
    std::cout << "  output %" << name << ": " << v.size() << " elements, sum " << sum << "\n";
  }
}

}  // namespace

// Verifier and symbolic memory-model checker only: no interpreter, so no inputs and no size limit
// (docs/gir.md, "Symbolic checks").
static int runSymbolicCheck(const Args& args, const Graph& g) {
  auto r = checkMemoryModelSymbolic(g);
  if (!r) return reportBadInput(r.error());
  std::cout << args.positional[0] << ": " << g.liveNodeCount() << " nodes, " << kernelCount(g) << " kernel(s), " << g.units
            << " units\nverify: ok\n"
            << (r->clean() ? "memory model (symbolic): ok\n" : "memory model (symbolic): " + std::to_string(r->total) + " finding(s)\n" + r->str());
  return r->clean() ? kExitOk : kExitFinding;
}

int runCheck(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"seed"}, {"quiet", "symbolic"});
  if (!args) return reportBadInput(args.error());
  auto g = loadOne(*args, "gir check FILE [--seed N] [--symbolic]");
  if (!g) return reportBadInput(g.error());
  if (auto st = verifyGraph(*g); !st) return reportBadInput(st.error());
  if (args->has("symbolic")) return runSymbolicCheck(*args, *g);
  auto seed = integerOption(*args, "seed", 1);
  if (!seed) return reportBadInput(seed.error());
  if (auto st = fitsInterpreterBudget(*g); !st) return reportBadInput(st.error());
  ValidityReport r = checkValidity(*g, randomInputs(*g, static_cast<uint64_t>(*seed)));
  std::cout << args->positional[0] << ": " << g->liveNodeCount() << " nodes, " << kernelCount(*g) << " kernel(s), "
            << g->units << " units\n" << r.str();
  if (!r.runError.empty()) return kExitBadInput;
  if (!args->has("quiet")) printOutputsSummary(r.outputs);
  return r.valid() ? kExitOk : kExitFinding;
}

int runPrint(const CommandArgs& argv) {
  auto args = parseArgs(argv, {}, {"json"});
  if (!args) return reportBadInput(args.error());
  auto g = loadOne(*args, "gir print FILE [--json]");
  if (!g) return reportBadInput(g.error());
  if (auto st = verifyGraph(*g); !st) return reportBadInput(st.error());
  std::cout << (args->has("json") ? graphToJson(*g) : printGraph(*g));
  return kExitOk;
}

int runConvert(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"o", "output"}, {});
  if (!args) return reportBadInput(args.error());
  std::string out = args->option("o", args->option("output"));
  if (out.empty()) return reportBadInput(makeError("usage: gir convert FILE -o OUT(.json|.gir)"));
  auto g = loadOne(*args, "gir convert FILE -o OUT(.json|.gir)");
  if (!g) return reportBadInput(g.error());
  if (auto st = verifyGraph(*g); !st) return reportBadInput(st.error());
  bool json = out.size() >= 5 && out.compare(out.size() - 5, 5, ".json") == 0;
  if (auto st = writeOutput(out, json ? graphToJson(*g) : printGraph(*g)); !st) return reportBadInput(st.error());
  return kExitOk;
}

}  // namespace gir::cli
