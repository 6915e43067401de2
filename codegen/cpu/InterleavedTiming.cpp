#include "codegen/cpu/InterleavedTiming.h"

#include <algorithm>

namespace gir::codegen::cpu {

Timing combineRounds(const std::vector<Timing>& rounds) {
  Timing t;
  if (rounds.empty()) return t;
  std::vector<double> medians, p10s, p90s;
  t.minUs = rounds.front().minUs;
  t.maxUs = rounds.front().maxUs;
  for (const Timing& r : rounds) {
    medians.push_back(r.medianUs);
    p10s.push_back(r.p10Us);
    p90s.push_back(r.p90Us);
    t.minUs = std::min(t.minUs, r.minUs);
    t.maxUs = std::max(t.maxUs, r.maxUs);
    t.repeats += r.repeats;
  }
  t.medianUs = summarize(medians).medianUs;
  t.p10Us = summarize(p10s).medianUs;
  t.p90Us = summarize(p90s).medianUs;
  return t;
}

std::vector<size_t> roundOrder(size_t n, int round) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = round % 2 == 0 ? i : n - 1 - i;
  return order;
}

Status timeInterleaved(std::vector<TimedGraph>& graphs, const TimingOptions& t, int rounds) {
  rounds = std::max(rounds, 1);
  TimingOptions perRound = t;
  perRound.budgetSeconds = t.budgetSeconds / rounds;
  std::vector<std::vector<Timing>> whole(graphs.size());
  std::vector<std::vector<std::vector<Timing>>> kernels(graphs.size());
  for (int r = 0; r < rounds; ++r)
    for (size_t i : roundOrder(graphs.size(), r)) {
      auto w = graphs[i].kernel->time(*graphs[i].inputs, perRound);
      if (!w) return w.takeError();
      whole[i].push_back(*w);
      auto pk = graphs[i].kernel->timeKernels(*graphs[i].inputs, perRound);
      if (!pk) return pk.takeError();
      kernels[i].resize(pk->size());
      for (size_t k = 0; k < pk->size(); ++k) kernels[i][k].push_back((*pk)[k]);
    }
  for (size_t i = 0; i < graphs.size(); ++i) {
    graphs[i].whole = combineRounds(whole[i]);
    graphs[i].perKernel.clear();
    for (const auto& k : kernels[i]) graphs[i].perKernel.push_back(combineRounds(k));
  }
  return success();
}

}  // namespace gir::codegen::cpu
