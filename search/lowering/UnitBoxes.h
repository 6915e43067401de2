// Which part of an op's iteration space each unit owns: one box per unit (or none), all boxes the
// same extent. A template is a rule for choosing the boxes: "natural" splits leading dims of the
// space over units (indexed by destination, or by source for a reduction); "follow" takes the boxes
// that make this op read a tensor exactly as its producer's units wrote it (indexed by source), the
// choice that lets merge keep the tensor in registers (the ShuffleNet fragment, docs/rewrites.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "search/lowering/IterationSpace.h"

namespace gir::search {

// A set of buffer offsets: offset + sum_d k_d * strides[d], 0 <= k_d < shape[d]. Canonical form:
// no extent-1 dims, adjacent dims coalesced when contiguous, order kept (it is the element order).
struct LinearSlice {
  int64_t offset = 0;
  std::vector<int64_t> shape, strides;
  bool operator==(const LinearSlice&) const = default;
  int64_t numel() const;
};
LinearSlice canonicalSlice(int64_t offset, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);
// The same set with dims sorted by stride, for comparing sets regardless of element order.
LinearSlice sortedSlice(const LinearSlice& s);

// A transpose staged through a scratch tile shared by the units of a block (TiledTranspose.h):
// `tile` x `tile` elements over the space dims that are innermost in the source (`sourceInner`) and
// in the destination (`destInner`), cut in `parts` strips, one per unit.
struct TileStaging {
  int sourceInner = -1, destInner = -1;
  int64_t tile = 0, parts = 0;
};

struct UnitBoxes {
  std::vector<int64_t> ext;                             // per dim of the space
  std::vector<std::optional<std::vector<int64_t>>> lo;  // per unit
  std::string description;                              // "natural outer=[0,1] tile=1", "follow %x"
  // Set when the op is staged through a tile: the boxes above are where units store the output
  // (indexed by destination); each unit loads the source strip sourceStrip() names.
  std::optional<TileStaging> staged;
  // A contraction's K per chunk (contractionChunk); 0 or the whole K: one chunk.
  int64_t chunk = 0;
  int64_t units() const { return static_cast<int64_t>(lo.size()); }
  int64_t boxNumel() const;
};

// What each unit holds of one tensor after an op wrote it (none where the unit wrote nothing).
using TensorPlacement = std::vector<std::optional<LinearSlice>>;

// Units take the dims `outer` in row-major order; the last of them in tiles of `tile` elements, the
// one before it (when there are two or more) in tiles of `tileBefore`, the others one at a time.
Expected<UnitBoxes> naturalBoxes(const IterationSpace& s, const std::vector<int>& outer, int64_t tile, int64_t tileBefore = 1);
// The boxes under which access `a` of this op reads, unit by unit, what `placement` holds.
Expected<UnitBoxes> followBoxes(const IterationSpace& s, const TensorAccess& a, const TensorPlacement& placement);
// Whether the box of unit u meets the access's region (clipToRegion without building the clip).
bool meetsRegion(const UnitBoxes& b, int64_t u, const TensorAccess& a);
// The part of the box of unit u that lies in the access's region (none when empty).
std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> clipToRegion(const UnitBoxes& b, int64_t u, const TensorAccess& a);
// The buffer offsets an access touches for unit u (dims where the access does not vary dropped).
std::optional<LinearSlice> accessSlice(const UnitBoxes& b, int64_t u, const TensorAccess& a);
TensorPlacement placementOf(const UnitBoxes& b, const TensorAccess& write);

}  // namespace gir::search
