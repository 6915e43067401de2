// `gir walkthrough`: the headless tour of the bundled GIR examples — print, check, and show
// what the memory-model checker says about a broken variant.
#include <iostream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "core/gir/Json.h"
#include "core/gir/Printer.h"
#include "core/gir/Validity.h"
#include "rewrite/Cost.h"
#include "rewrite/GreedyOptimizer.h"
#include "search/ModelPipeline.h"
#include "search/templates/SubgraphCheck.h"

#ifndef GIR_SOURCE_DIR
#define GIR_SOURCE_DIR "."
#endif

namespace gir::cli {

namespace {

void showExample(const std::string& path, const std::string& what) {
  std::cout << "\n== " << what << "\n   " << path << "\n\n";
  auto g = loadGirFile(path);
  if (!g) {
    std::cout << g.error().str() << "\n";
    return;
  }
  std::cout << printGraph(*g) << "\n";
  ValidityReport r = checkValidity(*g, randomInputs(*g, 1));
  std::cout << "kernels: " << kernelCount(*g) << ", nodes: " << g->liveNodeCount() << "\n" << r.str();
}

void showGreedy(const std::string& path, const std::string& what) {
  std::cout << "\n== " << what << "\n   " << path << "\n\n";
  auto g = loadGirFile(path);
  if (!g) {
    std::cout << g.error().str() << "\n";
    return;
  }
  std::optional<HardwareDesc> hw;
  if (auto h = loadHardwareByName(g->target)) hw = *h;
  Stepper st(*g, hw, /*checked=*/true);
  std::cout << "before: " << st.cost().str() << "\n";
  GreedyResult r = runGreedy(st);
  for (size_t i = 0; i < st.position(); ++i) {
    const StepRecord& s = st.history()[i];
    std::cout << "  step " << i + 1 << " " << s.rule << ": " << s.explanation << "\n    dram bytes " << s.costBefore.dramBytes
              << " -> " << s.costAfter.dramBytes << ", kernels " << s.costBefore.kernels << " -> " << s.costAfter.kernels
              << " (verified)\n";
  }
  std::cout << "greedy " << stopReasonName(r.stop) << " after " << r.steps << " steps; after: " << st.cost().str() << "\n\n"
            << printGraph(st.graph());
}

// From a model through the model pipeline: import, find the memory-bound subgraph, lower it with the row
// templates (one kernel per op, joined by device syncs), optimize, and check against the reference evaluator.
void showFromOnnx(const std::string& path) {
  std::cout << "\n== From ONNX: " << path << "\n\n";
  auto hw = loadHardwareByName("nvidia-h100");
  if (!hw) {
    std::cout << hw.error().str() << "\n";
    return;
  }
  auto imported = search::importModel(path, *hw);
  if (!imported) {
    std::cout << imported.error().str() << "\n";
    return;
  }
  search::CompileOptions co;
  co.lowering = search::LowerWith::RowTemplates;
  auto compiled = search::compileSubgraph(*imported, 0, *hw, co);
  if (!compiled) {
    std::cout << compiled.error().str() << "\n";
    return;
  }
  const compute::Subgraph& sub = imported->pre.subgraphs[0];
  std::cout << sub.ops.size() << " ops; minimal DRAM bytes " << sub.minBytes << "\nper-op row templates merged with device syncs: "
            << computeCost(compiled->lowered.gir, &*hw).str() << "\n";
  auto check = search::checkAgainstReference(imported->model, sub, compiled->lowered, compiled->optimized, 1);
  std::cout << "greedy " << stopReasonName(compiled->greedy.stop) << " after " << compiled->greedy.steps
            << " verified steps: " << computeCost(compiled->optimized, &*hw).str() << "\n"
            << "against the reference evaluator: ";
  if (check) std::cout << "largest relative error " << check->maxRelativeError << " over " << check->outputs << " output(s)\n\n";
  else std::cout << check.error().str() << "\n\n";
  std::cout << printGraph(compiled->optimized);
}

}  // namespace

int runWalkthrough(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"dir"}, {});
  if (!args) return reportBadInput(args.error());
  std::string dir = args->option("dir", std::string(GIR_SOURCE_DIR) + "/tests/golden/gir");
  std::cout << "GIR Workbench walkthrough (headless)\n"
               "A GIR-Graph is a dataflow graph of gOperators (move, ew, reduce, broadcast, sync) over memory\n"
               "slices at memory levels, run by every parallel unit. Each example is printed, verified, run\n"
               "by the interpreter and replayed by the memory-model checker.\n";
  showExample(dir + "/relu.gir", "ReLU: load dram -> reg, compute, store; 1024 units (paper figure 4)");
  showExample(dir + "/softmax_block.gir", "Row softmax: 4 units of a block share each row through shared memory");
  showExample(dir + "/softmax_race.gir", "The same without the block sync: the checker reports the race");
  showExample(dir + "/two_kernels.gir", "Two kernels joined by a device sync");
  showGreedy(dir + "/shufflenet_source.gir",
             "ShuffleNet concat -> shuffle -> split, layout ops indexed by source: the greedy optimizer, step by step");
  showGreedy(dir + "/figure6.gir", "Paper figure 6: swap unblocks sync insertion and merge");
  showFromOnnx(std::string(GIR_SOURCE_DIR) + "/scenarios/softmax.onnx");
  return kExitOk;
}

}  // namespace gir::cli
