// `gir lower MODEL.onnx [--target T] [--subgraph N] [--templates search|rows] [--optimized]
//  [--rows-per-unit K] [--block B] [-o OUT.gir]`: a memory-bound subgraph of a model as per-op GIR
// kernels merged with device syncs, ready for `gir opt` and `gir check`. The templates are the GIR
// search's choice (printed as a comment on stderr), or the row templates; --optimized prints the
// graph after the greedy optimizer instead.
#include <iostream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "core/compute/Preprocess.h"
#include "core/gir/Json.h"
#include "core/gir/Printer.h"
#include "core/onnx/OnnxImporter.h"
#include "search/GirSearch.h"
#include "search/templates/RowLowering.h"

namespace gir::cli {


int runLower(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"target", "subgraph", "rows-per-unit", "block", "o", "templates"}, {"json", "optimized", "list-templates"});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1) return reportBadInput(makeError("usage: gir lower MODEL.onnx [--target T] [--subgraph N] [-o OUT]"));
  auto hw = loadHardwareByName(args->option("target", "nvidia-h100"));
  if (!hw) return reportBadInput(hw.error());
  auto model = compute::importOnnxFile(args->positional[0]);
  if (!model) return reportBadInput(model.error());
  auto pre = compute::preprocess(*model, *hw);
  if (!pre) return reportBadInput(pre.error());
  auto index = integerOption(*args, "subgraph", 0);
  auto rows = integerOption(*args, "rows-per-unit", 1);
  auto block = integerOption(*args, "block", 4);
  for (const auto* v : {&index, &rows, &block})
    if (!*v) return reportBadInput(v->error());
  if (*index >= static_cast<int64_t>(pre->subgraphs.size()))
    return reportBadInput(makeError("the model has " + std::to_string(pre->subgraphs.size()) + " memory-bound subgraph(s); there is no subgraph " +
                                    std::to_string(*index), SourceLocation{args->positional[0], 0, 0, ""}));
  if (*rows < 1 || *block < 1) return reportBadInput(makeError("--rows-per-unit and --block must be at least 1"));
  if (args->has("list-templates")) {
    const auto& sub = pre->subgraphs[*index];
    for (size_t i = 0; i < sub.ops.size(); ++i) {
      std::cout << model->op(sub.ops[i]).name << ":";
      for (const auto& t : search::templateOptions(*model, sub, i, search::boxElementBudget(*hw))) std::cout << " " << t.str();
      std::cout << "\n";
    }
    return kExitOk;
  }
  std::string kind = args->option("templates", "search");
  if (kind != "search" && kind != "rows") return reportBadInput(makeError("--templates expects 'search' or 'rows', got '" + kind + "'"));
  Expected<search::LoweredSubgraph> lowered = makeError("");
  Graph optimized;
  if (kind == "rows") {
    lowered = search::lowerRowwise(*model, pre->subgraphs[*index], *hw, {*rows, *block});
  } else {
    search::SearchOptions so;
    so.unitsPerBlock = *block;
    auto found = search::searchTemplates(*model, pre->subgraphs[*index], *hw, so);
    if (found) {
      std::cerr << "# templates:";
      for (const auto& t : found->choice) std::cerr << " " << t.str();
      std::cerr << "\n# after greedy: " << found->cost.str() << "\n# search: " << found->stats.explored << " explored, "
                << search::formatCount(found->stats.pruned) << " pruned, " << found->stats.infeasible << " infeasible, " << found->stats.seconds << " s"
                << (found->stats.beam ? " (beam)" : "") << "\n";
      optimized = std::move(found->optimized);
      lowered = std::move(found->lowered);
    } else {
      lowered = found.takeError();
    }
  }
  if (!lowered) {
    Diagnostic d = lowered.error();
    d.location.file = args->positional[0];
    return reportBadInput(d);
  }
  const Graph& shown = args->has("optimized") && kind == "search" ? optimized : lowered->gir;
  std::string text = args->has("json") ? graphToJson(shown) : printGraph(shown);
  if (auto st = writeOutput(args->option("o", "-"), text); !st) return reportBadInput(st.error());
  return kExitOk;
}

}  // namespace gir::cli
