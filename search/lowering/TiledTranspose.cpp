// Squares of a transpose per block, strips per unit.
#include "search/lowering/TiledTranspose.h"

namespace gir::search {

std::optional<std::pair<int, int>> transposedInnerDims(const IterationSpace& s) {
  if (s.compute != ComputeKind::Copy || s.reads.size() != 1 || s.writes.size() != 1) return std::nullopt;
  const TensorAccess& r = s.reads[0];
  const TensorAccess& w = s.writes[0];
  if (!r.wholeSpace(s.dims) || !w.wholeSpace(s.dims)) return std::nullopt;
  int a = -1, c = -1;
  for (size_t d = 0; d < s.dims.size(); ++d) {
    if (s.dims[d] == 1) continue;
    if (r.coeff[d] == 0) return std::nullopt;  // a broadcast, not a transpose
    if (r.coeff[d] == 1) a = static_cast<int>(d);
    if (w.coeff[d] == 1) c = static_cast<int>(d);
  }
  if (a < 0 || c < 0 || a == c) return std::nullopt;
  return std::make_pair(a, c);
}

Expected<UnitBoxes> tiledBoxes(const IterationSpace& s, int64_t tile, int64_t parts) {
  auto inner = transposedInnerDims(s);
  if (!inner) return makeError("not a transpose: the source and the destination have the same innermost dimension");
  auto [a, c] = *inner;
  if (tile < 1 || parts < 1 || tile % parts != 0) return makeError("a tile side of " + std::to_string(tile) + " is not cut in " + std::to_string(parts) + " strips");
  if (s.dims[a] % tile != 0 || s.dims[c] % tile != 0) return makeError("a tile side of " + std::to_string(tile) + " does not divide the transposed dimensions");
  std::vector<int64_t> step(s.dims.size(), 1), count(s.dims.size());
  step[a] = step[c] = tile;
  int64_t squares = 1;
  for (size_t d = 0; d < s.dims.size(); ++d) {
    count[d] = s.dims[d] / step[d];
    squares *= count[d];
    if (squares > (int64_t{1} << 22)) return makeError("too many tiles");
  }
  UnitBoxes b;
  b.ext.assign(s.dims.size(), 1);
  b.ext[a] = tile / parts;
  b.ext[c] = tile;
  b.lo.resize(static_cast<size_t>(squares * parts));
  for (int64_t u = 0; u < squares * parts; ++u) {
    std::vector<int64_t> lo(s.dims.size(), 0);
    for (int64_t rest = u / parts, d = static_cast<int64_t>(s.dims.size()); d-- > 0;) {
      lo[d] = (rest % count[d]) * step[d];
      rest /= count[d];
    }
    lo[a] += (u % parts) * (tile / parts);
    b.lo[u] = std::move(lo);
  }
  b.staged = TileStaging{a, c, tile, parts};
  b.description = "tiled " + std::to_string(tile) + "x" + std::to_string(tile) + " in " + std::to_string(parts) + " strips";
  return b;
}

std::pair<std::vector<int64_t>, std::vector<int64_t>> sourceStrip(const UnitBoxes& b, int64_t u) {
  const TileStaging& t = *b.staged;
  std::vector<int64_t> lo = *b.lo[u], ext = b.ext;
  int64_t strip = t.tile / t.parts, k = u % t.parts;
  lo[t.sourceInner] -= k * strip;
  lo[t.destInner] += k * strip;
  ext[t.sourceInner] = t.tile;
  ext[t.destInner] = strip;
  return {lo, ext};
}

std::optional<int64_t> tileSide(const IterationSpace& s) {
  auto inner = transposedInnerDims(s);
  if (!inner) return std::nullopt;
  for (int64_t side : {32, 16})
    if (s.dims[inner->first] % side == 0 && s.dims[inner->second] % side == 0) return side;
  return std::nullopt;
}

}  // namespace gir::search
