// Greedy segmentation: the longest run from each start that every offset fits.
#include "search/lowering/UnitSegments.h"

#include <algorithm>

namespace gir::search {

namespace {

// f(u) for u in [s, limit): the longest prefix [s, e) that c + sum_k b_k (u/k) reproduces. The
// coefficients come from the jumps f(n) - f(n-1) = sum_{k | n} b_k at the first usable n.
// `f` holds f(u) for u in [s, limit) at f[u - s]: a run's values only (a graph of many short runs
// over many units must not copy the whole unit range per run).
std::pair<int64_t, AffineIndex> fitRun(const std::vector<int64_t>& fRun, int64_t s, int64_t limit, const std::vector<int64_t>& ks) {
  auto f = [&](int64_t u) { return fRun[static_cast<size_t>(u - s)]; };
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
  auto eval = [&](int64_t u) {
    int64_t v = 0;
    for (size_t i = 0; i < ks.size(); ++i) v += b[i] * (u / ks[i]);
    return v;
  };
  int64_t base = f(s) - eval(s);
  int64_t e = s + 1;
  while (e < limit && base + eval(e) == f(e)) ++e;
  AffineIndex a(base);
  for (size_t i = 0; i < ks.size(); ++i)
    if (b[i] != 0 && (s / ks[i] != (e - 1) / ks[i])) a.addTerm(UnitTermKind::Div, ks[i], b[i]);
    else if (b[i] != 0) a.addConstant(b[i] * (s / ks[i]));
  return {e, a};
}

}  // namespace

std::vector<UnitSegment> segmentUnits(const std::vector<std::optional<UnitWork>>& work, std::vector<int64_t> divisors) {
  divisors.push_back(1);
  std::sort(divisors.begin(), divisors.end());
  divisors.erase(std::unique(divisors.begin(), divisors.end()), divisors.end());
  divisors.erase(std::remove_if(divisors.begin(), divisors.end(), [&](int64_t k) { return k < 1 || k >= static_cast<int64_t>(work.size()); }),
                 divisors.end());
  if (divisors.empty() || divisors.front() != 1) divisors.insert(divisors.begin(), 1);
  std::vector<UnitSegment> out;
  int64_t units = static_cast<int64_t>(work.size());
  for (int64_t s = 0; s < units;) {
    if (!work[s]) { ++s; continue; }
    int64_t run = s + 1;
    while (run < units && work[run] && work[run]->signature == work[s]->signature) ++run;
    size_t slices = work[s]->offsets.size();
    std::vector<std::vector<int64_t>> f(slices, std::vector<int64_t>(static_cast<size_t>(run - s), 0));
    for (int64_t u = s; u < run; ++u)
      for (size_t i = 0; i < slices; ++i) f[i][static_cast<size_t>(u - s)] = work[u]->offsets[i];
    int64_t end = run;
    std::vector<AffineIndex> idx(slices);
    for (size_t i = 0; i < slices; ++i) end = std::min(end, fitRun(f[i], s, run, divisors).first);
    for (size_t i = 0; i < slices; ++i) idx[i] = fitRun(f[i], s, end, divisors).second;
    out.push_back(UnitSegment{s, end, std::move(idx)});
    s = end;
  }
  return out;
}

}  // namespace gir::search
