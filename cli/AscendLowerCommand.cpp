// `gir ascend-lower FILE.gir|MODEL.onnx [--target ascend910] [--subgraph N] [--plan gir|rows] [-o OUT.asck]
// [--insert] [--phases data|sync] [--no-double-buffer] [--ub-bytes N] [--stats] [--print-gir]`: a GIR kernel (or a model's
// memory-bound subgraph as the GIR planner plans it, or as the row templates lower it) as one AI Core's .asck program; the lowering is checked against the GIR interpreter; with --insert, set/wait
// are inserted and the oracle judges the result (exit 1 on a violation).
#include <filesystem>
#include <iostream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "codegen/ascend/lower/FromGir.h"
#include "core/compute/Preprocess.h"
#include "core/gir/Parser.h"
#include "core/gir/Printer.h"
#include "core/hw/HardwareDesc.h"
#include "core/onnx/OnnxImporter.h"
#include "search/ModelPlanner.h"
#include "search/templates/RowLowering.h"
#include "search/ModelPipeline.h"

namespace gir::cli {

namespace {

using namespace gir::ascend;

struct Source {
  Graph graph;
  std::map<std::string, std::string> tensorOf;
};

// The GIR planner's plan (search::planSubgraph, as the tests lower it), or the row templates' per-op graph.
Expected<search::LoweredSubgraph> lowerModelSubgraph(const compute::Graph& model, const compute::Subgraph& sub, size_t index,
                                                     const HardwareDesc& hw, const std::string& plan) {
  if (plan == "rows") return search::lowerRowwise(model, sub, hw, {});
  search::PlanRequest req;
  req.planners = {"gir"};
  req.validate = false;
  auto plans = search::planSubgraph(model, sub, index, hw, req);
  if (!plans) return plans.takeError();
  return std::move(plans->planners[0].lowered.lowered);
}

Expected<Source> loadModelSubgraph(const std::string& path, const HardwareDesc& hw, const std::string& subgraph,
                                   const std::string& plan) {
  auto imported = search::importModel(path, hw);
  if (!imported) return imported.takeError();
  char* end = nullptr;
  long long index = std::strtoll(subgraph.c_str(), &end, 10);
  if (subgraph.empty() || *end != '\0') return makeError("--subgraph '" + subgraph + "': expected a subgraph number", SourceLocation{path, 0, 0, ""});
  auto sub = imported->subgraph(index);
  if (!sub) return sub.takeError();
  auto lowered = lowerModelSubgraph(imported->model, **sub, static_cast<size_t>(index), hw, plan);
  if (!lowered) {
    Diagnostic d = lowered.takeError();
    d.location.file = path;
    return d;
  }
  Source src{std::move(lowered->gir), {}};
  for (const auto* m : {&lowered->inputBuffers, &lowered->outputBuffers})
    for (const auto& [buffer, tensor] : *m) src.tensorOf[buffer] = imported->model.tensor(tensor).name;
  return src;
}

Expected<Source> loadSource(const std::string& path, const HardwareDesc& hw, const std::string& subgraph, const std::string& plan) {
  if (std::filesystem::path(path).extension() == ".onnx") return loadModelSubgraph(path, hw, subgraph, plan);
  auto text = readFile(path);
  if (!text) return text.takeError();
  auto g = parseGirText(*text, path);
  if (!g) return g.takeError();
  return Source{std::move(*g), {}};
}

}  // namespace

int runAscendLower(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"target", "subgraph", "o", "phases", "plan", "ub-bytes"}, {"insert", "no-double-buffer", "stats", "print-gir"});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1)
    return reportBadInput(makeError("usage: gir ascend-lower FILE.gir|MODEL.onnx [--target ascend910|ascend910b] [--subgraph N] [--plan gir|rows] "
                                    "[-o OUT.asck] [--insert] [--phases data|sync] [--no-double-buffer] [--ub-bytes N] [--stats] [--print-gir]"));
  const std::string& path = args->positional[0];
  std::string targetName = args->option("target", "ascend910");
  auto hw = loadHardwareByName(targetName);
  if (!hw) return reportBadInput(hw.error());
  const MemoryLevelDesc* ub = hw->level("ub");
  if (!hw->ascend || !ub) return reportBadInput(makeError("target '" + targetName + "' is not an Ascend target (no UB, no flags)"));
  auto target = loadTarget(targetName, std::filesystem::path(path).parent_path().string());
  if (!target) return reportBadInput(target.error());
  std::string plan = args->option("plan", "gir");
  if (plan != "gir" && plan != "rows") return reportBadInput(makeError("--plan expects 'gir' or 'rows', got '" + plan + "'"));
  auto src = loadSource(path, *hw, args->option("subgraph", "0"), plan);
  if (!src) return reportBadInput(src.error());
  if (args->has("print-gir")) {  // the GIR about to be lowered, e.g. a model's plan, for `gir check` or a fixture
    auto st = writeOutput(args->option("o"), printGraph(src->graph));
    return st ? kExitOk : reportBadInput(st.error());
  }

  std::string phases = args->option("phases", "data");
  if (phases != "data" && phases != "sync") return reportBadInput(makeError("--phases expects 'data' or 'sync', got '" + phases + "'"));
  FromGirOptions opt;
  opt.target = targetName;
  opt.phases = phases == "data" ? PhaseSplit::Data : PhaseSplit::Sync;
  opt.doubleBuffer = !args->has("no-double-buffer");
  opt.ubCapacityBytes = ub->capacityBytes;
  if (args->hasOption("ub-bytes")) {  // a smaller (or larger) UB than the target's, to see spilling and reuse
    auto ub = integerOption(*args, "ub-bytes", 0, 1);
    if (!ub) return reportBadInput(ub.error());
    opt.ubCapacityBytes = *ub;
  }
  opt.latencies = *target;
  opt.tensorOf = src->tensorOf;
  if (!args->has("insert")) {
    auto low = lowerGirToAsck(src->graph, opt);
    if (!low) return reportBadInput(low.error());
    if (auto st = checkLowering(src->graph, *low); !st) {
      std::cerr << "finding: the lowered program does not read what the GIR interpreter reads\n" << st.error().str() << "\n";
      return kExitFinding;
    }
    auto st = writeOutput(args->option("o"), printLowering(*low));
    return st ? kExitOk : reportBadInput(st.error());
  }
  // Lowers and checks once inside (a failed check is an error there: the lowering, not the input, is wrong).
  auto run = lowerInsertAndJudge(src->graph, opt, *target, normativeOracleOptions());
  if (!run) return reportBadInput(run.error());
  const OracleReport& rep = run->report;
  const InsertStats& is = run->inserted.stats;
  std::string summary = formatOracleReport(rep, run->lowering.program.name) + "  insertion: " + std::to_string(is.deps) +
                        " dependencies, " + std::to_string(is.virtualIds) + " virtual IDs, " + std::to_string(is.physicalMaxPerPair) +
                        " physical on the busiest pipe pair, " + std::to_string(is.millis) + " ms\n  " + portfolioText(is);
  AsckLowering shown = run->lowering;
  shown.program = run->inserted.output;
  if (auto st = writeOutput(args->option("o"), printLowering(shown)); !st) return reportBadInput(st.error());
  if (args->has("stats") || !rep.correct) std::cerr << summary;
  return rep.correct ? kExitOk : kExitFinding;
}

}  // namespace gir::cli
