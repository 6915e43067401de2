// `gir ascend-lower FILE.gir|MODEL.onnx [--target ascend910] [--subgraph N] [-o OUT.asck] [--insert]
// [--phases data|sync] [--no-double-buffer] [--stats]`: a GIR kernel (or a model's row-wise subgraph, lowered by the row templates)
// as one AI Core's .asck program; the lowering is checked against the GIR interpreter; with --insert, set/wait
// are inserted and the oracle judges the result (exit 1 on a violation).
#include <filesystem>
#include <iostream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "codegen/ascend/FromGir.h"
#include "core/compute/Preprocess.h"
#include "core/gir/Parser.h"
#include "core/hw/HardwareDesc.h"
#include "core/onnx/OnnxImporter.h"
#include "search/templates/RowLowering.h"

namespace gir::cli {

namespace {

using namespace gir::ascend;

struct Source {
  Graph graph;
  std::map<std::string, std::string> tensorOf;
};

Expected<Source> loadModelSubgraph(const std::string& path, const HardwareDesc& hw, const std::string& subgraph) {
  auto model = compute::importOnnxFile(path);
  if (!model) return model.takeError();
  auto pre = compute::preprocess(*model, hw);
  if (!pre) return pre.takeError();
  char* end = nullptr;
  long long index = std::strtoll(subgraph.c_str(), &end, 10);
  if (subgraph.empty() || *end != '\0' || index < 0 || index >= static_cast<long long>(pre->subgraphs.size()))
    return makeError("--subgraph '" + subgraph + "': the model has " + std::to_string(pre->subgraphs.size()) + " memory-bound subgraph(s)",
                     SourceLocation{path, 0, 0, ""});
  auto lowered = search::lowerRowwise(*model, pre->subgraphs[index], hw, {});
  if (!lowered) {
    Diagnostic d = lowered.takeError();
    d.location.file = path;
    return d;
  }
  Source src{std::move(lowered->gir), {}};
  for (const auto* m : {&lowered->inputBuffers, &lowered->outputBuffers})
    for (const auto& [buffer, tensor] : *m) src.tensorOf[buffer] = model->tensor(tensor).name;
  return src;
}

Expected<Source> loadSource(const std::string& path, const HardwareDesc& hw, const std::string& subgraph) {
  if (std::filesystem::path(path).extension() == ".onnx") return loadModelSubgraph(path, hw, subgraph);
  auto text = readFile(path);
  if (!text) return text.takeError();
  auto g = parseGirText(*text, path);
  if (!g) return g.takeError();
  return Source{std::move(*g), {}};
}

}  // namespace

int runAscendLower(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"target", "subgraph", "o", "phases"}, {"insert", "no-double-buffer", "stats"});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1)
    return reportBadInput(makeError("usage: gir ascend-lower FILE.gir|MODEL.onnx [--target ascend910|ascend910b] [--subgraph N] "
                                    "[-o OUT.asck] [--insert] [--phases data|sync] [--no-double-buffer] [--stats]"));
  const std::string& path = args->positional[0];
  std::string targetName = args->option("target", "ascend910");
  auto hw = loadHardwareByName(targetName);
  if (!hw) return reportBadInput(hw.error());
  const MemoryLevelDesc* ub = hw->level("ub");
  if (!hw->ascend || !ub) return reportBadInput(makeError("target '" + targetName + "' is not an Ascend target (no UB, no flags)"));
  auto target = loadTarget(targetName, std::filesystem::path(path).parent_path().string());
  if (!target) return reportBadInput(target.error());
  auto src = loadSource(path, *hw, args->option("subgraph", "0"));
  if (!src) return reportBadInput(src.error());

  std::string phases = args->option("phases", "data");
  if (phases != "data" && phases != "sync") return reportBadInput(makeError("--phases expects 'data' or 'sync', got '" + phases + "'"));
  FromGirOptions opt;
  opt.target = targetName;
  opt.phases = phases == "data" ? PhaseSplit::Data : PhaseSplit::Sync;
  opt.doubleBuffer = !args->has("no-double-buffer");
  opt.ubCapacityBytes = ub->capacityBytes;
  opt.latencies = *target;
  opt.tensorOf = src->tensorOf;
  auto low = lowerGirToAsck(src->graph, opt);
  if (!low) return reportBadInput(low.error());
  if (auto st = checkLowering(src->graph, *low); !st) {
    std::cerr << "finding: the lowered program does not read what the GIR interpreter reads\n" << st.error().str() << "\n";
    return kExitFinding;
  }
  if (!args->has("insert")) {
    auto st = writeOutput(args->option("o"), printLowering(*low));
    return st ? kExitOk : reportBadInput(st.error());
  }
  auto run = lowerInsertAndJudge(src->graph, opt, *target, normativeOracleOptions());
  if (!run) return reportBadInput(run.error());
  const OracleReport& rep = run->report;
  const InsertStats& is = run->inserted.stats;
  std::string summary = formatOracleReport(rep, run->lowering.program.name) + "  insertion: " + std::to_string(is.deps) +
                        " dependencies, " + std::to_string(is.virtualIds) + " virtual IDs, " + std::to_string(is.physicalMaxPerPair) +
                        " physical on the busiest pipe pair, " + std::to_string(is.millis) + " ms\n";
  AsckLowering shown = run->lowering;
  shown.program = run->inserted.output;
  if (auto st = writeOutput(args->option("o"), printLowering(shown)); !st) return reportBadInput(st.error());
  if (args->has("stats") || !rep.correct) std::cerr << summary;
  return rep.correct ? kExitOk : kExitFinding;
}

}  // namespace gir::cli
