// The loop nest of one gOperator for one unit: a row-major iteration space that refines the shapes
// of every slice the node touches, with each operand's stride per loop (0 where the operand does not
// move: a reduced axis for the output, a new axis for a broadcast input). Adjacent loops that every
// operand walks contiguously are merged, so the innermost loop is the longest contiguous run (the
// paper's width) and is the one a backend vectorizes. Target-neutral (docs/cpu.md, "The schedule").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

// One operand of the nest. A staged operand cannot be walked in the nest's order through its own
// strides (its shape and the nest's do not refine each other, or a broadcast would re-read device
// memory): the backend first packs it into a contiguous temporary in element order (inputs) or
// unpacks the temporary afterwards (outputs); `strides` then index that temporary.
struct NestOperand {
  SliceId slice;
  std::vector<int64_t> strides;  // one per loop, in elements
  bool staged = false;
};

struct LoopNest {
  std::vector<int64_t> extents;      // outermost first
  std::vector<bool> reduced;         // per loop: a reduction axis (reduce nodes only)
  std::vector<NestOperand> inputs;   // in the node's input order
  NestOperand output;
  int64_t outputElements = 0;        // elements of the output slice

  int64_t iterations() const;
  // True when the reduced loops are exactly the innermost ones (a scalar accumulator suffices).
  bool reductionIsInnermost() const;
};

// Fails, naming the node, when its slices' element counts do not fit its kind.
Expected<LoopNest> loopNestOf(const Graph& g, NodeId id);

// The coarsest loop extents that refine both row-major factorizations of one count (e.g. [2,1024]
// for [2048] and [2,1024]); nullopt when they split the elements at incompatible places.
std::optional<std::vector<int64_t>> commonRefinement(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

// The same nest over `extents`, which must refine nest.extents: each loop splits into consecutive
// loops of the refinement, which keep its reduced flag and take strides that walk the same elements.
std::optional<LoopNest> refineNest(const LoopNest& nest, const std::vector<int64_t>& extents);

// Row-major strides of a dense array of the given extents.
std::vector<int64_t> denseStrides(const std::vector<int64_t>& extents);

}  // namespace gir::codegen
