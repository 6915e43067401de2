// What one unit does for one op, before units are grouped: slices with concrete offsets and the
// nodes between them. Units whose programs have the same structure (everything but the offsets)
// and whose offsets fit one affine index become one GIR node per program node, with a domain.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <optional>
#include <vector>

#include "core/gir/Graph.h"
#include "search/lowering/UnitSegments.h"

namespace gir::search {

struct SliceSpec {
  BufferId buffer;
  int64_t offset = 0;
  std::vector<int64_t> shape, strides;
  bool sameLayout(const SliceSpec& o) const { return buffer == o.buffer && shape == o.shape && strides == o.strides; }
};

struct NodeSpec {
  NodePayload payload;
  std::vector<int> inputs, outputs;  // indices into UnitProgram::slices
  bool operator==(const NodeSpec&) const = default;
};

struct UnitProgram {
  std::vector<SliceSpec> slices;
  std::vector<NodeSpec> nodes;
  int slice(BufferId b, int64_t offset, std::vector<int64_t> shape, std::vector<int64_t> strides);
  void node(NodePayload p, std::vector<int> ins, std::vector<int> outs) { nodes.push_back(NodeSpec{std::move(p), std::move(ins), std::move(outs)}); }
  bool sameStructure(const UnitProgram& o) const;
};

// Which graph slices a materialized program read and wrote, per buffer, for joining ops later.
struct Materialized {
  std::vector<std::pair<BufferId, SliceId>> reads, writes;
};

// Device-level slices already made, so identical reads across ops share one view (merge-rar sees it).
using SliceCache = std::map<std::tuple<uint32_t, std::string, std::vector<int64_t>, std::vector<int64_t>>, SliceId>;

// One phase's programs for every unit, added in unit order and kept compactly: a representative
// program per class of equal structure, and per unit its class and its slices' offsets
// (UnitOffsets). A phase of millions of units thus costs a few numbers per unit, not a program.
class PhasePrograms {
 public:
  void add(std::optional<UnitProgram> p);
  const UnitOffsets& offsets() const { return offsets_; }
  const UnitProgram& program(int64_t cls) const { return classes_[static_cast<size_t>(cls)]; }

 private:
  std::vector<UnitProgram> classes_;
  UnitOffsets offsets_;
};

// Groups units into segments and adds their slices and nodes to `g`. `divisors` as in segmentUnits.
Materialized materialize(Graph& g, const PhasePrograms& programs, const std::vector<int64_t>& divisors, SliceCache& cache);

}  // namespace gir::search
