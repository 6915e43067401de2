// `gir lower MODEL.onnx [--target T] [--subgraph N] [--templates search|rows] [--optimized] [--print-after-each]
//  [--rows-per-unit K] [--block B] [-o OUT.gir]`: a memory-bound subgraph of a model as per-op GIR
// kernels merged with device syncs, ready for `gir opt` and `gir check`. The templates are the GIR
// search's choice (printed as a comment on stderr), or the row templates; --optimized prints the
// graph after the greedy optimizer instead; --print-after-each prints the IR after every step of the model
// pipeline (search/ModelPipeline.h) on stderr.
#include <iostream>

#include "cli/Args.h"
#include "cli/Commands.h"
#include "core/compute/Preprocess.h"
#include "core/gir/Json.h"
#include "core/gir/Printer.h"
#include "core/onnx/OnnxImporter.h"
#include "search/GirSearch.h"
#include "search/templates/RowLowering.h"
#include "search/ModelPipeline.h"

namespace gir::cli {


int runLower(const CommandArgs& argv) {
  auto args = parseArgs(argv, {"target", "subgraph", "rows-per-unit", "block", "o", "templates"},
                        {"json", "optimized", "list-templates", "print-after-each"});
  if (!args) return reportBadInput(args.error());
  if (args->positional.size() != 1) return reportBadInput(makeError("usage: gir lower MODEL.onnx [--target T] [--subgraph N] [-o OUT]"));
  auto hw = loadHardwareByName(args->option("target", "nvidia-h100"));
  if (!hw) return reportBadInput(hw.error());
  search::PrintAfter printAfter;
  if (args->has("print-after-each"))
    printAfter = [](const std::string& step, const std::string& ir) { std::cerr << "# after " << step << "\n" << ir << "\n"; };
  auto imported = search::importModel(args->positional[0], *hw, printAfter);
  if (!imported) return reportBadInput(imported.error());
  const compute::Graph* model = &imported->model;
  const compute::PreprocessResult* pre = &imported->pre;
  auto index = integerOption(*args, "subgraph", 0);
  auto rows = integerOption(*args, "rows-per-unit", 1);
  auto block = integerOption(*args, "block", 4);
  for (const auto* v : {&index, &rows, &block})
    if (!*v) return reportBadInput(v->error());
  if (auto sub = imported->subgraph(*index); !sub) return reportBadInput(sub.error());
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
  search::CompileOptions co;
  co.lowering = kind == "rows" ? search::LowerWith::RowTemplates : search::LowerWith::SearchedTemplates;
  co.rows = {*rows, *block};
  co.search.unitsPerBlock = *block;
  co.greedy = args->has("optimized") || args->has("print-after-each");
  co.printAfter = printAfter;
  auto compiled = search::compileSubgraph(*imported, *index, *hw, co);
  if (!compiled) {
    Diagnostic d = compiled.error();
    d.location.file = args->positional[0];
    // The default target is a GPU's: a plan that fits cpu-host may overflow its registers, so say which.
    d.notes.push_back("planned for target " + hw->name + (args->hasOption("target") ? "" : " (the default; --target picks another)"));
    return reportBadInput(d);
  }
  if (const auto& found = compiled->searched) {
    std::cerr << "# templates:";
    for (const auto& t : found->choice) std::cerr << " " << t.str();
    std::cerr << "\n# after greedy: " << found->cost.str() << "\n# search: " << found->stats.explored << " explored, "
              << search::formatCount(found->stats.pruned) << " pruned, " << found->stats.infeasible << " infeasible, " << found->stats.seconds << " s"
              << (found->stats.beam ? " (beam)" : "") << "\n";
  }
  const Graph& shown = args->has("optimized") ? compiled->optimized : compiled->lowered.gir;
  std::string text = args->has("json") ? graphToJson(shown) : printGraph(shown);
  if (auto st = writeOutput(args->option("o", "-"), text); !st) return reportBadInput(st.error());
  return kExitOk;
}

}  // namespace gir::cli
