// The one pipeline from an ONNX file to optimized GIR (docs/plans.md, "The model pipeline"):
// import -> preprocess (shapes, library calls, memory-bound subgraphs) -> lower one subgraph (the
// searched per-op templates, or the row templates) -> greedy, with the IR printable after each step.
// The CLI's model commands, the app and the GPU corpus start from it instead of repeating the steps.
#pragma once

#include <functional>
#include <string>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"
#include "core/hw/HardwareDesc.h"
#include "rewrite/GreedyOptimizer.h"
#include "search/GirSearch.h"
#include "search/templates/RowLowering.h"

namespace gir::search {

// An imported and preprocessed model.
struct ImportedModel {
  std::string path;
  compute::Graph model;
  compute::PreprocessResult pre;
  // Subgraph `index`, or an error located at the model file that says how many there are.
  Expected<const compute::Subgraph*> subgraph(int64_t index) const;
};

// Called after a step with its name (import, preprocess, lower, greedy) and the IR it produced.
using PrintAfter = std::function<void(const std::string& step, const std::string& ir)>;

Expected<ImportedModel> importModel(const std::string& path, const HardwareDesc& hw, const PrintAfter& printAfter = {});

enum class LowerWith { SearchedTemplates, RowTemplates };

struct CompileOptions {
  LowerWith lowering = LowerWith::SearchedTemplates;
  SearchOptions search;           // searched templates
  RowTemplateParams rows;         // row templates
  bool greedy = true;             // run the greedy optimizer (checked mode) on the lowered GIR
  PrintAfter printAfter;
};

struct CompiledSubgraph {
  int64_t index = 0;
  LoweredSubgraph lowered;                // the GIR as lowered, before greedy
  Graph optimized;                        // after greedy (the lowered GIR when greedy is off)
  std::optional<SearchResult> searched;   // the template search's choice, candidates and stats
  GreedyResult greedy;                    // the greedy run on the row templates' GIR
};

// Lowers subgraph `index` of the model and optimizes it. With the searched templates the greedy step is
// the search's own (it costs each candidate after greedy); with the row templates greedy runs here.
Expected<CompiledSubgraph> compileSubgraph(const ImportedModel& m, int64_t index, const HardwareDesc& hw,
                                           const CompileOptions& options);
// The same for a subgraph the caller holds (the app lowers copies on a worker); index stays 0.
Expected<CompiledSubgraph> compileSubgraph(const compute::Graph& model, const compute::Subgraph& sub, const HardwareDesc& hw,
                                           const CompileOptions& options);

}  // namespace gir::search
