// Boxes per unit: the natural split, the follow (inverse of an access map on a producer's slices),
// and the slices an access touches.
#include "search/lowering/UnitBoxes.h"

#include <algorithm>
#include <numeric>

namespace gir::search {

int64_t LinearSlice::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

namespace {

// Appends dims innermost first (coalescing a dim into the one inside it when contiguous), then
// puts them in order: no insertion at the front (this runs per unit and access in the search).
class CanonicalBuilder {
 public:
  explicit CanonicalBuilder(LinearSlice& s) : s_(s) {
    s_.shape.clear();
    s_.strides.clear();
  }
  void addOuter(int64_t extent, int64_t stride) {
    if (extent == 1) return;
    if (!s_.shape.empty() && stride == s_.strides.back() * s_.shape.back()) {
      s_.shape.back() *= extent;
      return;
    }
    s_.shape.push_back(extent);
    s_.strides.push_back(stride);
  }
  void finish() {
    std::reverse(s_.shape.begin(), s_.shape.end());
    std::reverse(s_.strides.begin(), s_.strides.end());
  }

 private:
  LinearSlice& s_;
};

}  // namespace

LinearSlice canonicalSlice(int64_t offset, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  LinearSlice s{offset, {}, {}};
  CanonicalBuilder b(s);
  for (size_t d = shape.size(); d-- > 0;) b.addOuter(shape[d], strides[d]);
  b.finish();
  return s;
}

LinearSlice sortedSlice(const LinearSlice& s) {
  std::vector<size_t> order(s.shape.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.strides[a] > s.strides[b]; });
  std::vector<int64_t> shape, strides;
  for (size_t i : order) {
    shape.push_back(s.shape[i]);
    strides.push_back(s.strides[i]);
  }
  return canonicalSlice(s.offset, shape, strides);
}

int64_t UnitBoxes::boxNumel() const {
  int64_t n = 1;
  for (auto e : ext) n *= e;
  return n;
}

Expected<UnitBoxes> naturalBoxes(const IterationSpace& s, const std::vector<int>& outer, int64_t tile, int64_t tileBefore) {
  if (outer.empty()) return makeError("a natural template needs at least one unit dimension");
  UnitBoxes b;
  b.ext = s.dims;
  std::vector<int64_t> radix;
  for (int d : outer) {
    // A reduction's own reduced dims may be cut (SplitReduction.h); other ops keep them whole.
    bool splittable = d >= 0 && d < static_cast<int>(s.dims.size()) && !s.whole[d] && (!s.reduced[d] || s.compute == ComputeKind::Reduce);
    if (!splittable) return makeError("dimension " + std::to_string(d) + " cannot be split over units");
    b.ext[d] = 1;
    radix.push_back(s.dims[d]);
  }
  if (tile < 1 || radix.back() % tile != 0) return makeError("tile " + std::to_string(tile) + " does not divide dimension " + std::to_string(outer.back()));
  b.ext[outer.back()] = tile;
  radix.back() /= tile;
  const size_t before = outer.size() >= 2 ? outer.size() - 2 : outer.size();
  if (tileBefore != 1) {
    if (before == outer.size() || tileBefore < 1 || radix[before] % tileBefore != 0)
      return makeError("a tile of " + std::to_string(tileBefore) + " before the last unit dimension needs two unit dimensions, the first a multiple of it");
    b.ext[outer[before]] = tileBefore;
    radix[before] /= tileBefore;
  }
  int64_t units = 1;
  for (auto r : radix) {
    units *= r;
    if (units > (int64_t{1} << 22)) return makeError("too many units for this split");
  }
  b.lo.resize(units);
  for (int64_t u = 0; u < units; ++u) {
    std::vector<int64_t> lo(s.dims.size(), 0);
    int64_t rest = u;
    for (size_t i = outer.size(); i-- > 0;) {
      lo[outer[i]] = rest % radix[i];
      rest /= radix[i];
    }
    lo[outer.back()] *= tile;
    if (before < outer.size()) lo[outer[before]] *= tileBefore;
    b.lo[u] = std::move(lo);
  }
  b.description = "natural outer=[";
  for (size_t i = 0; i < outer.size(); ++i) b.description += (i ? "," : "") + std::to_string(outer[i]);
  b.description += "] tile=" + std::to_string(tile) + (tileBefore > 1 ? " tile before=" + std::to_string(tileBefore) : "");
  return b;
}

namespace {

// The box (lo, ext) of the space whose image under `a` is exactly the set `slice`.
std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> boxFromSlice(const IterationSpace& s, const TensorAccess& a,
                                                                                  const LinearSlice& slice) {
  size_t rank = s.dims.size();
  std::vector<int64_t> lo(rank, 0), ext(rank, 1);
  std::vector<size_t> dims;
  for (size_t d = 0; d < rank; ++d) {
    if (a.coeff[d] < 0) return std::nullopt;
    if (a.coeff[d] == 0) ext[d] = s.dims[d];  // the tensor does not vary here: the unit covers all of it
    else dims.push_back(d);
  }
  std::stable_sort(dims.begin(), dims.end(), [&](size_t x, size_t y) { return a.coeff[x] < a.coeff[y]; });
  LinearSlice sorted = sortedSlice(slice);
  std::vector<std::pair<int64_t, int64_t>> rest;  // (extent, stride), innermost first
  for (size_t i = sorted.shape.size(); i-- > 0;) rest.emplace_back(sorted.shape[i], sorted.strides[i]);
  size_t next = 0;
  for (size_t d : dims) {
    if (next == rest.size() || rest[next].second > a.coeff[d]) continue;
    auto& [n, st] = rest[next];
    if (st != a.coeff[d]) return std::nullopt;
    if (n <= s.dims[d]) {
      ext[d] = n;
      ++next;
    } else if (n % s.dims[d] == 0) {
      ext[d] = s.dims[d];
      n /= s.dims[d];
      st *= s.dims[d];
    } else {
      return std::nullopt;
    }
  }
  if (next != rest.size()) return std::nullopt;
  int64_t rem = slice.offset - a.constant;
  for (size_t i = dims.size(); i-- > 0;) {
    size_t d = dims[i];
    if (rem < 0) return std::nullopt;
    lo[d] = rem / a.coeff[d];
    if (lo[d] >= s.dims[d]) lo[d] = s.dims[d] - 1;
    rem -= lo[d] * a.coeff[d];
  }
  if (rem != 0) return std::nullopt;
  for (size_t d = 0; d < rank; ++d)
    if (lo[d] + ext[d] > s.dims[d]) return std::nullopt;
  return std::make_pair(lo, ext);
}

}  // namespace

Expected<UnitBoxes> followBoxes(const IterationSpace& s, const TensorAccess& a, const TensorPlacement& placement) {
  if (!a.wholeSpace(s.dims)) return makeError("an access to one piece of a concat cannot lead the unit mapping");
  UnitBoxes b;
  b.lo.resize(placement.size());
  bool first = true;
  for (size_t u = 0; u < placement.size(); ++u) {
    if (!placement[u]) continue;
    auto box = boxFromSlice(s, a, *placement[u]);
    if (!box) return makeError("unit " + std::to_string(u) + "'s part of the tensor is not a box of this op's iteration space");
    if (first) b.ext = box->second;
    else if (box->second != b.ext) return makeError("units hold differently shaped parts of the tensor");
    first = false;
    b.lo[u] = std::move(box->first);
    auto image = accessSlice(b, static_cast<int64_t>(u), a);
    if (!image || (*image != *placement[u] && sortedSlice(*image) != sortedSlice(*placement[u])))  // equal slices: equal sets
      return makeError("unit " + std::to_string(u) + "'s part of the tensor is not the image of a box");
  }
  if (first) return makeError("no unit holds any part of the tensor");
  for (size_t d = 0; d < s.dims.size(); ++d)
    if ((s.whole[d] || (s.reduced[d] && s.compute != ComputeKind::Reduce)) && b.ext[d] != s.dims[d])
      return makeError("a unit would hold only part of a contraction or a plane");
  b.description = "follow";
  return b;
}

bool meetsRegion(const UnitBoxes& b, int64_t u, const TensorAccess& a) {
  if (!b.lo[u]) return false;
  const auto& lo = *b.lo[u];
  for (size_t d = 0; d < lo.size(); ++d)
    if (std::min(lo[d] + b.ext[d], a.hi[d]) <= std::max(lo[d], a.lo[d])) return false;
  return true;
}

std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> clipToRegion(const UnitBoxes& b, int64_t u, const TensorAccess& a) {
  if (!b.lo[u]) return std::nullopt;
  const auto& lo = *b.lo[u];
  std::vector<int64_t> clo(lo.size()), cext(lo.size());
  for (size_t d = 0; d < lo.size(); ++d) {
    clo[d] = std::max(lo[d], a.lo[d]);
    int64_t hi = std::min(lo[d] + b.ext[d], a.hi[d]);
    if (hi <= clo[d]) return std::nullopt;
    cext[d] = hi - clo[d];
  }
  return std::make_pair(clo, cext);
}

std::optional<LinearSlice> accessSlice(const UnitBoxes& b, int64_t u, const TensorAccess& a) {
  // clipToRegion and canonicalSlice in one pass, innermost dim first.
  if (!b.lo[u]) return std::nullopt;
  const auto& lo = *b.lo[u];
  LinearSlice s;
  s.offset = a.constant;
  CanonicalBuilder built(s);
  for (size_t d = lo.size(); d-- > 0;) {
    int64_t from = std::max(lo[d], a.lo[d]), to = std::min(lo[d] + b.ext[d], a.hi[d]);
    if (to <= from) return std::nullopt;
    s.offset += a.coeff[d] * from;
    if (a.coeff[d] != 0) built.addOuter(to - from, a.coeff[d]);
  }
  built.finish();
  return s;
}

TensorPlacement placementOf(const UnitBoxes& b, const TensorAccess& write) {
  TensorPlacement p(b.lo.size());
  for (int64_t u = 0; u < b.units(); ++u) p[u] = accessSlice(b, u, write);
  return p;
}

}  // namespace gir::search
