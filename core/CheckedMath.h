// Size and index arithmetic that says when it overflows instead of wrapping (signed overflow is
// undefined behaviour): extents, element counts, strides and offsets from untrusted files go through
// these before they are used (docs/gir.md, "Limits").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace gir {

inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// The product of the extents, or none when it overflows int64.
inline std::optional<int64_t> checkedProduct(const std::vector<int64_t>& extents) {
  int64_t n = 1;
  for (int64_t e : extents) {
    auto m = checkedMul(n, e);
    if (!m) return std::nullopt;
    n = *m;
  }
  return n;
}

}  // namespace gir
