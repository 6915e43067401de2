// Presburger text for GIR slice accesses, read by isl: which elements unit u of a node touches
// (docs/gir.md, "Symbolic checks"). Internal to core: only core's .cpp files see isl.
#pragma once

#include <isl/cpp.h>

#include <cstdint>
#include <optional>
#include <string>

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir {

// offset(u) as isl text: u/k and u%k become floor(u/k) and (u mod k), exact for u >= 0.
std::string islAffine(const AffineIndex& a, const std::string& u);

// "unit `u` of domain `d` touches element `e` through slice `s`": u in d, and
// e = offset(u) + sum_d i_d*stride_d for some 0 <= i_d < shape_d (the i_d existential).
// The size of the text depends on the slice's rank, never on its extents or on the units.
std::string islTouches(const MemorySlice& s, UnitDomain d, const std::string& u, const std::string& e);

// Owns one isl context; isl errors become C++ exceptions (isl/cpp.h), which the callers of
// islGuarded turn into a Diagnostic, so none crosses core's API.
constexpr unsigned long kIslMaxOperations = 1'000'000;

class IslContext {
 public:
  IslContext();
  ~IslContext();
  IslContext(const IslContext&) = delete;
  IslContext& operator=(const IslContext&) = delete;
  isl::ctx ctx() const { return isl::ctx(raw_); }
  // Whether the operation budget is spent (a trivial question fails).
  bool exhausted() const;

 private:
  isl_ctx* raw_;
};

// Runs `f(ctx)` (returning Expected<T>) on a fresh context, turning an isl exception into an error
// naming `what`. When isl stopped because its operation budget ran out (its parser then reports a
// "syntax error" in text that is well formed), the error says so: the question was inconclusive.
template <typename T, typename F>
Expected<T> islGuarded(const std::string& what, F&& f) {
  IslContext ic;
  try {
    return f(ic.ctx());
  } catch (const isl::exception& e) {
    if (ic.exhausted())
      return makeError(what + ": inconclusive: isl gave up after its budget of " + std::to_string(kIslMaxOperations) + " operations");
    return makeError(what + ": isl failed: " + std::string(e.what()));
  }
}

// The value as int64, or nullopt when it is not an integer or does not fit.
std::optional<int64_t> islToInt64(const isl::val& v);
// Coordinate `pos` of a point of a set (a wrapped map's domain dims come first).
int64_t islCoordinate(const isl::point& p, int pos);
// Number of points of a bounded set (isl enumerates it: cost is the count, not the bounds).
int64_t islCount(const isl::set& s);

}  // namespace gir
