// import -> preprocess -> lower -> greedy, each step's IR offered to the caller.
#include "search/ModelPipeline.h"

#include "core/gir/Printer.h"
#include "core/onnx/OnnxImporter.h"
#include "rewrite/Stepper.h"

namespace gir::search {

Expected<const compute::Subgraph*> ImportedModel::subgraph(int64_t index) const {
  if (index >= 0 && index < static_cast<int64_t>(pre.subgraphs.size())) return &pre.subgraphs[static_cast<size_t>(index)];
  SourceLocation where{path, 0, 0, ""};
  if (pre.subgraphs.empty()) return makeError("the model has no memory-bound subgraph", where);
  return makeError("the model has " + std::to_string(pre.subgraphs.size()) + " memory-bound subgraph(s); there is no subgraph " +
                       std::to_string(index),
                   where);
}

Expected<ImportedModel> importModel(const std::string& path, const HardwareDesc& hw, const PrintAfter& printAfter) {
  auto model = compute::importOnnxFile(path);
  if (!model) return model.takeError();
  if (printAfter) printAfter("import", compute::printGraph(*model));
  auto pre = compute::preprocess(*model, hw);
  if (!pre) return pre.takeError();
  if (printAfter) printAfter("preprocess", compute::printPreprocessSummary(*model, *pre));
  return ImportedModel{path, std::move(*model), std::move(*pre)};
}

Expected<CompiledSubgraph> compileSubgraph(const ImportedModel& m, int64_t index, const HardwareDesc& hw,
                                           const CompileOptions& options) {
  auto sub = m.subgraph(index);
  if (!sub) return sub.takeError();
  auto out = compileSubgraph(m.model, **sub, hw, options);
  if (out) out->index = index;
  return out;
}

Expected<CompiledSubgraph> compileSubgraph(const compute::Graph& model, const compute::Subgraph& sub, const HardwareDesc& hw,
                                           const CompileOptions& options) {
  CompiledSubgraph out;
  if (options.lowering == LowerWith::SearchedTemplates) {
    auto found = searchTemplates(model, sub, hw, options.search);
    if (!found) return found.takeError();
    out.lowered = found->lowered;
    out.optimized = options.greedy ? found->optimized : found->lowered.gir;
    out.searched = std::move(*found);
  } else {
    auto rows = lowerRowwise(model, sub, hw, options.rows);
    if (!rows) return rows.takeError();
    out.lowered = std::move(*rows);
    out.optimized = out.lowered.gir;
  }
  if (options.printAfter) options.printAfter("lower", printGraph(out.lowered.gir));
  if (!options.greedy) return out;
  if (options.lowering == LowerWith::RowTemplates) {
    Stepper st(out.lowered.gir, hw, /*checked=*/true);
    out.greedy = runGreedy(st);
    out.optimized = st.graph();
  }
  if (options.printAfter) options.printAfter("greedy", printGraph(out.optimized));
  return out;
}

}  // namespace gir::search
