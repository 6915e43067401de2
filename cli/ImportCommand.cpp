// `gir import MODEL.onnx [--target T] [--json] [--dot] [--graph]`: import an ONNX model, preprocess
// it for a target (library calls vs memory-bound subgraphs) and print the summary (design.md §2).
#include <iostream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "core/onnx/OnnxImporter.h"

namespace gir::cli {

int runImport(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"target"}, {"json", "dot", "graph"});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1)
    return reportBadInput(makeError("usage: gir import MODEL.onnx [--target T] [--json] [--dot] [--graph]"));
  if (args->has("json") && args->has("dot")) return reportBadInput(makeError("--json and --dot are exclusive"));
  auto hw = loadHardwareByName(args->option("target", "cpu-host"));
  if (!hw) return reportBadInput(hw.error());
  auto graph = compute::importOnnxFile(args->positional[0]);
  if (!graph) return reportBadInput(graph.error());
  auto result = compute::preprocess(*graph, *hw);
  if (!result) return reportBadInput(result.error());
  if (args->has("json")) {
    std::cout << compute::preprocessToJson(*graph, *result);
    return kExitOk;
  }
  if (args->has("dot")) {
    std::cout << compute::preprocessToDot(*graph, *result);
    return kExitOk;
  }
  if (args->has("graph")) std::cout << compute::printGraph(*graph) << "\n";
  std::cout << compute::printPreprocessSummary(*graph, *result);
  return kExitOk;
}

}  // namespace gir::cli
