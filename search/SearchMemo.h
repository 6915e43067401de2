// Verdicts of earlier template searches, by the structure of the subgraph searched. Models repeat
// their blocks (nine transformer sublayers, sixteen shuffle units), and two subgraphs that agree in
// op kinds, attributes, shapes, wiring and constant values lower to the same GIR-Graph up to buffer
// names: the same templates are chosen, the cost is the same and so is the validity verdict. A hit
// skips the search and the validation and only lowers the remembered choice under the new names.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"
#include "rewrite/Cost.h"
#include "search/lowering/TemplateState.h"

namespace gir::search {

struct SearchVerdict {
  std::vector<OpTemplate> choice;
  GraphCost cost;
};

// One memo serves one target and one set of search options (the key holds neither).
class SearchMemo {
 public:
  // The subgraph's structure as text: every op's kind, attributes and output shapes, every operand
  // as a producer inside the subgraph or an input (shape, and values for constants: over 64 values,
  // a 128-bit hash of them), the outputs.
  static std::string keyOf(const compute::Graph& g, const compute::Subgraph& sub);

  const SearchVerdict* find(const std::string& key) const;
  void remember(const std::string& key, SearchVerdict verdict);
  int64_t hits() const { return hits_; }
  void countHit() { ++hits_; }

 private:
  std::map<std::string, SearchVerdict> verdicts_;
  int64_t hits_ = 0;
};

}  // namespace gir::search
