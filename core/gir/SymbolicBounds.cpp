// Symbolic bounds: the set of units whose touched range leaves the buffer, its first point by isl's
// lexmin (a binary search when the offset is c + a*u). The range of unit u is
// [offset(u) + negative spans, offset(u) + positive spans].
#include "core/gir/SymbolicBounds.h"

#include "core/gir/IslAccess.h"

namespace gir {

namespace {

// Sums of the negative and of the positive spans (shape[d]-1)*strides[d]; nullopt on overflow.
std::optional<std::pair<int64_t, int64_t>> spans(const MemorySlice& s) {
  int64_t neg = 0, pos = 0;
  for (size_t d = 0; d < s.shape.size(); ++d) {
    int64_t span = 0;
    if (__builtin_mul_overflow(s.shape[d] - 1, s.strides[d], &span)) return std::nullopt;
    if (__builtin_add_overflow(span < 0 ? neg : pos, span, span < 0 ? &neg : &pos)) return std::nullopt;
  }
  return std::make_pair(neg, pos);
}

// offset(u) in 64 bits, nullopt on overflow (the isl side is exact; this is only for the message).
std::optional<int64_t> evalChecked(const AffineIndex& a, int64_t u) {
  int64_t v = a.constant();
  for (const UnitTerm& t : a.terms()) {
    int64_t x = t.kind == UnitTermKind::Div ? u / t.divisor : t.kind == UnitTermKind::Mod ? u % t.divisor : u, y = 0;
    if (__builtin_mul_overflow(t.coeff, x, &y) || __builtin_add_overflow(v, y, &v)) return std::nullopt;
  }
  return v;
}

// Is the range of unit u outside [0, numel)? In 128 bits, so no offset of 64-bit terms wraps.
bool outside(const AffineIndex& a, int64_t u, int64_t neg, int64_t pos, int64_t numel) {
  __int128 v = a.constant();
  for (const UnitTerm& t : a.terms()) v += static_cast<__int128>(t.coeff) * u;
  return v + neg < 0 || v + pos >= numel;
}

// offset = c + a*u: the range moves monotonically, so the units out of bounds are a prefix and a
// suffix of the domain; with the first unit inside, a binary search finds where the suffix starts.
std::optional<int64_t> firstOutsideLinear(const AffineIndex& a, UnitDomain d, int64_t neg, int64_t pos, int64_t numel) {
  if (outside(a, d.begin, neg, pos, numel)) return d.begin;
  if (!outside(a, d.end - 1, neg, pos, numel)) return std::nullopt;
  int64_t lo = d.begin, hi = d.end - 1;  // lo inside, hi outside
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    (outside(a, mid, neg, pos, numel) ? hi : lo) = mid;
  }
  return hi;
}

bool isLinear(const AffineIndex& a) {
  return a.terms().empty() || (a.terms().size() == 1 && a.terms()[0].kind == UnitTermKind::Identity);
}

// The first unit out of bounds, by isl for offsets with u/k or u%k terms.
std::optional<int64_t> firstOutsideIsl(isl::ctx ctx, const AffineIndex& a, UnitDomain d, int64_t neg, int64_t pos, int64_t numel) {
  std::string off = islAffine(a, "u");
  isl::set bad(ctx, "{ [u] : " + std::to_string(d.begin) + " <= u < " + std::to_string(d.end) + " and (" + off + " + " +
                             std::to_string(neg) + " < 0 or " + off + " + " + std::to_string(pos) + " >= " + std::to_string(numel) + ") }");
  if (bad.is_empty()) return std::nullopt;
  return islCoordinate(bad.lexmin().sample_point(), 0);
}

Diagnostic overflow(int64_t unit) {
  return makeError("the elements it touches for unit " + std::to_string(unit) + " overflow 64-bit indices");
}

}  // namespace

Expected<std::optional<OutOfBounds>> firstOutOfBounds(const MemorySlice& s, UnitDomain d, int64_t numel) {
  auto sp = spans(s);
  if (!sp) return overflow(d.begin);
  // Named, not a structured binding: clang 14 does not let the lambda below capture a binding.
  const int64_t neg = sp->first, pos = sp->second;
  return islGuarded<std::optional<OutOfBounds>>("bounds check", [&](isl::ctx ctx) -> Expected<std::optional<OutOfBounds>> {
    auto unit = isLinear(s.offset) ? firstOutsideLinear(s.offset, d, neg, pos, numel) : firstOutsideIsl(ctx, s.offset, d, neg, pos, numel);
    if (!unit) return std::optional<OutOfBounds>();
    auto base = evalChecked(s.offset, *unit);
    int64_t lo = 0, hi = 0;
    if (!base || __builtin_add_overflow(*base, neg, &lo) || __builtin_add_overflow(*base, pos, &hi)) return overflow(*unit);
    return std::optional<OutOfBounds>(OutOfBounds{*unit, lo, hi});
  });
}

}  // namespace gir
