// A reduction whose units each hold only part of the reduced dims (docs/plans.md, "Templates", split
// reductions: row and column reductions done by the units of a block through shared memory, and across
// blocks through DRAM with a second kernel). Units holding the same output elements form a group: each unit
// reduces its box to a partial, stores it to a scratch buffer, and after a sync the group's first
// unit (its leader) combines the partials and stores the result. The lowering joins the scratch
// buffer with a device sync; sync-insertion then finds whether the group shares a block (a block
// sync, the scratch in shared memory) or not (a second kernel through DRAM).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/Expected.h"
#include "search/lowering/IterationSpace.h"
#include "search/lowering/UnitBoxes.h"

namespace gir::search {

// The units that combine their partials: first, first + stride, ..., count of them. Combining
// needs the partials as one strided slice, so units must be evenly spaced.
struct ReductionGroup {
  int64_t first = 0;
  int64_t stride = 1;
  int64_t count = 1;
  int64_t leader() const { return first; }
};

// Whether the boxes split a reduced dim of a reduction.
bool splitsReduction(const IterationSpace& s, const UnitBoxes& b);

// Per unit: its group (none for units without a box). Fails when boxes do not tile the reduced
// dims of every output element exactly or a group's units are not evenly spaced.
Expected<std::vector<std::optional<ReductionGroup>>> reductionGroups(const IterationSpace& s, const UnitBoxes& b);

// Who combines a group's partials. With few groups each group's leader does, inside its group (a
// block sync where the group shares a block). With more than kLeaderGroups the leaders would be that
// many GIR nodes (leaders are no contiguous run of units), so unit g combines the g-th group (in
// order of first unit): one node over units [0, groups) whatever the size, at the price of a
// second kernel where a group and its combiner are in different blocks (docs/scale.md).
constexpr size_t kLeaderGroups = 64;
// The distinct groups in order of their first unit when unit g combines group g; empty when the
// leaders combine.
std::vector<ReductionGroup> combinedByIndex(const std::vector<std::optional<ReductionGroup>>& groups);

// A natural split (naturalBoxes's parameters).
struct SplitShape {
  std::vector<int> outer;
  int64_t tile = 1, tileBefore = 1;
};

// Natural splits that cut the reduction (for rows too long for one unit's registers): the kept
// dims split as a natural template would, and the first reduced dim in the fewest equal parts
// whose box fits `budget`; then the column strip, if any.
std::vector<SplitShape> splitReductionShapes(const IterationSpace& s, int64_t budget);
// Where the innermost dim is kept and the reduction lies outside it (a column sum), the column
// strip: units take tiles of rows (the first reduced dim) and, inside them, strips of kStripWidths
// columns (the innermost dim), so a unit reads whole DRAM lines, one partial per column, and
// neighbouring units read neighbouring lines. Offered even where a unit could hold a whole column:
// that column is one element per DRAM line (docs/scale.md, "Column strips").
std::optional<SplitShape> columnStripShape(const IterationSpace& s, int64_t budget);
constexpr int64_t kStripWidths[] = {16, 32, 64};

}  // namespace gir::search
