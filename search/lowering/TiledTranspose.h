// A transpose tiled through shared memory (docs/plans.md, "Templates", tiled: a transpose done directly
// or tiled through shared memory). Reading a transpose's source along the destination's order touches one
// element per DRAM transaction; the tiled template gives a block of units a `tile` x `tile` square
// over the two dims that are innermost in the source and in the destination. Each unit first
// copies a strip of the square along the source's innermost dim (contiguous DRAM reads) into a
// scratch tile, and after a sync copies a strip along the destination's innermost dim out
// (contiguous DRAM writes). The lowering joins the scratch with a device sync; sync-insertion finds
// that it stays within the block, makes it a block sync and puts the scratch in shared memory.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/Expected.h"
#include "search/lowering/IterationSpace.h"
#include "search/lowering/UnitBoxes.h"

namespace gir::search {

// The space dims innermost in the source and in the destination of a layout copy with one whole-
// space read and one write; none when they are the same dim (nothing to stage).
std::optional<std::pair<int, int>> transposedInnerDims(const IterationSpace& s);

// Where each unit stores the output: squares in row-major order over the space, `parts` units per
// square, unit k of a square holding rows [k * tile / parts, (k + 1) * tile / parts) of it along the
// source's inner dim and the whole square along the destination's inner dim.
Expected<UnitBoxes> tiledBoxes(const IterationSpace& s, int64_t tile, int64_t parts);

// Unit u's strip of the source: the whole square along the source's inner dim, its part along the
// destination's. Returns (lo, ext) in space dims.
std::pair<std::vector<int64_t>, std::vector<int64_t>> sourceStrip(const UnitBoxes& b, int64_t u);

// The square side offered: 32 (a row of 32 f32 fills a GPU's 128-byte DRAM transaction and two of
// a CPU's 64-byte lines) when it divides both dims, else 16; none when neither does.
std::optional<int64_t> tileSide(const IterationSpace& s);

}  // namespace gir::search
