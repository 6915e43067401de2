// `gir walkthrough`: the headless tour of the bundled GIR examples — print, check, and show
// what the memory-model checker says about a broken variant.
#include <iostream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "core/gir/Json.h"
#include "core/gir/Printer.h"
#include "core/gir/Validity.h"
#include "core/compute/Preprocess.h"
#include "core/onnx/OnnxImporter.h"
#include "rewrite/GreedyOptimizer.h"
#include "search/templates/RowLowering.h"
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

// From a model: import, find the memory-bound subgraph, lower it with the row templates (one kernel
// per op, joined by device syncs), optimize, and check against the reference evaluator.
void showFromOnnx(const std::string& path) {
  std::cout << "\n== From ONNX: " << path << "\n\n";
  auto hw = loadHardwareByName("nvidia-h100");
  auto model = compute::importOnnxFile(path);
  if (!hw || !model) {
    std::cout << (hw ? model.error().str() : hw.error().str()) << "\n";
    return;
  }
  auto pre = compute::preprocess(*model, *hw);
  if (!pre || pre->subgraphs.empty()) {
    std::cout << "no memory-bound subgraph\n";
    return;
  }
  const compute::Subgraph& sub = pre->subgraphs[0];
  auto lowered = search::lowerRowwise(*model, sub, *hw, {});
  if (!lowered) {
    std::cout << lowered.error().str() << "\n";
    return;
  }
  Stepper st(lowered->gir, *hw, /*checked=*/true);
  std::cout << sub.ops.size() << " ops; minimal DRAM bytes " << sub.minBytes << "\nper-op row templates merged with device syncs: "
            << st.cost().str() << "\n";
  GreedyResult r = runGreedy(st);
  auto check = search::checkAgainstReference(*model, sub, *lowered, st.graph(), 1);
  std::cout << "greedy " << stopReasonName(r.stop) << " after " << r.steps << " verified steps: " << st.cost().str() << "\n"
            << "against the reference evaluator: ";
  if (check) std::cout << "largest relative error " << check->maxRelativeError << " over " << check->outputs << " output(s)\n\n";
  else std::cout << check.error().str() << "\n\n";
  std::cout << printGraph(st.graph());
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
