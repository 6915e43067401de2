// Greedy segmentation: the longest run from each start that every offset fits.
#include "search/lowering/UnitSegments.h"

#include <algorithm>

namespace gir::search {

namespace {

// f(u) for u in [s, limit): the longest prefix [s, e) that c + sum_k b_k (u/k) reproduces. The
// coefficients come from the jumps f(n) - f(n-1) = sum_{k | n} b_k at the first usable n; the
// prefix is then checked unit by unit over the divisors with a coefficient only.
template <class F>
std::pair<int64_t, AffineIndex> fitRun(const F& f, int64_t s, int64_t limit, const std::vector<int64_t>& ks) {
  std::vector<int64_t> b(ks.size(), 0);
  for (size_t i = 0; i < ks.size(); ++i) {
    for (int64_t n = (s / ks[i] + 1) * ks[i]; n < limit; n += ks[i]) {
      bool clean = true;  // no larger divisor (unknown yet) divides n
      for (size_t j = i + 1; j < ks.size() && clean; ++j) clean = n % ks[j] != 0;
      if (!clean) continue;
      int64_t jump = f(n) - f(n - 1);
      for (size_t j = 0; j < i; ++j)
        if (n % ks[j] == 0) jump -= b[j];
      b[i] = jump;
      break;
    }
  }
  std::vector<std::pair<int64_t, int64_t>> terms;  // (k, b_k), b_k != 0
  for (size_t i = 0; i < ks.size(); ++i)
    if (b[i] != 0) terms.emplace_back(ks[i], b[i]);
  auto eval = [&](int64_t u) {
    int64_t v = 0;
    for (auto [k, c] : terms) v += c * (u / k);
    return v;
  };
  int64_t base = f(s) - eval(s);
  int64_t e = s + 1;
  while (e < limit && base + eval(e) == f(e)) ++e;
  AffineIndex a(base);
  for (auto [k, c] : terms)
    if (s / k != (e - 1) / k) a.addTerm(UnitTermKind::Div, k, c);
    else a.addConstant(c * (s / k));
  return {e, a};
}

}  // namespace

void UnitOffsets::add(int64_t cls, const std::vector<int64_t>& offsets) {
  class_.push_back(cls);
  flat_.insert(flat_.end(), offsets.begin(), offsets.end());
  start_.push_back(flat_.size());
}

std::vector<UnitSegment> segmentUnits(const UnitOffsets& work, std::vector<int64_t> divisors) {
  int64_t units = work.units();
  divisors.push_back(1);
  std::sort(divisors.begin(), divisors.end());
  divisors.erase(std::unique(divisors.begin(), divisors.end()), divisors.end());
  divisors.erase(std::remove_if(divisors.begin(), divisors.end(), [&](int64_t k) { return k < 1 || k >= units; }), divisors.end());
  if (divisors.empty() || divisors.front() != 1) divisors.insert(divisors.begin(), 1);
  std::vector<UnitSegment> out;
  for (int64_t s = 0; s < units;) {
    if (work.cls(s) < 0) { ++s; continue; }
    int64_t run = s + 1;
    while (run < units && work.cls(run) == work.cls(s)) ++run;
    size_t slices = work.slices(s);
    int64_t end = run;
    std::vector<AffineIndex> idx(slices);
    for (size_t i = 0; i < slices; ++i) end = std::min(end, fitRun([&](int64_t u) { return work.offset(u, i); }, s, run, divisors).first);
    for (size_t i = 0; i < slices; ++i) idx[i] = fitRun([&](int64_t u) { return work.offset(u, i); }, s, end, divisors).second;
    out.push_back(UnitSegment{s, end, std::move(idx)});
    s = end;
  }
  return out;
}

}  // namespace gir::search
