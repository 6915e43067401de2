// `gir import MODEL.onnx [--target T] [--json] [--dot] [--graph] [--library-epilogue]`: import an ONNX
// model, preprocess it for a target (library calls vs memory-bound subgraphs) and print the summary
// (docs/import.md); --library-epilogue folds each compute-bound call's epilogue into the call first
// (compute/LibraryFusion.h), lists the folded ops and summarizes the adjusted subgraphs.
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "core/compute/LibraryFusion.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "core/onnx/OnnxImporter.h"
#include "search/ModelPipeline.h"

namespace gir::cli {

int runImport(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"target"}, {"json", "dot", "graph", "library-epilogue"});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1)
    return reportBadInput(makeError("usage: gir import MODEL.onnx [--target T] [--json] [--dot] [--graph] [--library-epilogue]"));
  if (args->has("json") && args->has("dot")) return reportBadInput(makeError("--json and --dot are exclusive"));
  auto hw = loadHardwareByName(args->option("target", "cpu-host"));
  if (!hw) return reportBadInput(hw.error());
  auto imported = search::importModel(args->positional[0], *hw);
  if (!imported) return reportBadInput(imported.error());
  const compute::Graph* graph = &imported->model;
  compute::PreprocessResult* result = &imported->pre;
  std::optional<compute::LibraryBoundaries> folded;
  if (args->has("library-epilogue")) {
    auto b = compute::foldLibraryEpilogues(*graph, *result);
    if (!b) return reportBadInput(b.error());
    folded = std::move(*b);
    *result = folded->pre;
  }
  if (args->has("json")) {
    if (!folded) {
      std::cout << compute::preprocessToJson(*graph, *result);
      return kExitOk;
    }
    auto j = nlohmann::json::parse(compute::preprocessToJson(*graph, *result));
    j["library_epilogues"] = nlohmann::json::parse(compute::libraryEpiloguesToJson(*graph, *folded));
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  if (args->has("dot")) {
    std::cout << compute::preprocessToDot(*graph, *result);
    return kExitOk;
  }
  if (args->has("graph")) std::cout << compute::printGraph(*graph) << "\n";
  std::cout << compute::printPreprocessSummary(*graph, *result);
  if (folded) std::cout << compute::printLibraryEpilogues(*graph, *folded);
  return kExitOk;
}

}  // namespace gir::cli
