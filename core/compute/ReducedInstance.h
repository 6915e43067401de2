// A reduced instance of a memory-bound subgraph: the same ops with some extents divided (fewer rows,
// a smaller batch), so that a plan chosen for it applies unchanged at full size and the element-level
// oracle (interpreter, memory-model checker, reference evaluator) costs milliseconds whatever the
// real size (docs/scale.md, "Reduced instances").
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"

namespace gir::compute {

// One family of axes that shrink together: every (tensor, axis) in it is divided by `factor`.
struct ReducedAxis {
  std::string tensor;  // a representative member (the largest tensor's name)
  int axis = 0;
  int64_t extent = 0;  // that member's full extent
  int64_t factor = 1;
};

struct ReducedInstance {
  Graph graph;     // the subgraph's ops and the tensors they touch, nothing else
  Subgraph sub;    // every op of `graph`, in order (op i is op i of the original subgraph)
  std::vector<ReducedAxis> axes;
  std::map<int32_t, TensorId> tensorOf;  // full tensor index -> its tensor in `graph`
  std::map<int32_t, OpId> opOf;          // full op index -> its op in `graph`
  std::string summary() const;
  // A part of the original subgraph (a kernel group), as the same part of this instance.
  Subgraph restrict(const Subgraph& part) const;  // "x: axis 0 8192 -> 16; ..."
};

// Elements over the subgraph's tensors (inputs, intermediates, outputs): the size of its oracle.
int64_t subgraphElements(const Graph& g, const Subgraph& sub);

// Divides every axis family that can shrink without changing what a template means (not reduced,
// concatenated, split, sliced, convolved or pooled over, not inside a reshape's regrouping), until
// the subgraph holds about `targetElements`; a family keeps at least 16 (then 4, 2, 1) of its
// extent where it can. A tensor's innermost axis never shrinks (every box holds it or tiles of it).
// An axis that a unit's box (at most `maxBoxElements`, with room for the
// larger budget of copies and reductions) cannot hold whole at full size stays too large to hold
// whole. Fails, with the reason, when no family can shrink.
Expected<ReducedInstance> reduceSubgraph(const Graph& g, const Subgraph& sub, int64_t maxBoxElements,
                                         int64_t targetElements = int64_t{1} << 17);

}  // namespace gir::compute
