// Vector clocks over a trace and the robust check of docs/ascend.md, "Correctness and figures".
#include <algorithm>

#include "codegen/ascend/AsckConflicts.h"
#include "codegen/ascend/AsckSimulator.h"

namespace gir::ascend {

namespace {

// Queues (a barrier ALL sits in every one), each op's queue position, and the sets/waits of each flag.
std::vector<std::vector<int>> layout(const Trace& t, HappensBefore& hb) {
  size_t n = t.ops.size();
  hb.seq.assign(n, -1);
  hb.opPipe.assign(n, 0);
  hb.vc.assign(n * kNumPipes, -1);
  hb.setsOf.assign(t.flags.size(), {});
  hb.waitsOf.assign(t.flags.size(), {});
  std::vector<std::vector<int>> q(kNumPipes);
  for (int i = 0; i < static_cast<int>(n); ++i) {
    const DynOp& o = t.ops[i];
    hb.opPipe[i] = o.kind == DynKind::BarrierAll ? 0 : o.pipe;
    if (o.kind == DynKind::BarrierAll) {
      for (auto& qq : q) qq.push_back(i);
      continue;
    }
    hb.seq[i] = static_cast<int>(q[o.pipe].size());
    q[o.pipe].push_back(i);
    if (o.kind == DynKind::Set) hb.setsOf[o.flag].push_back(i);
    if (o.kind == DynKind::Wait) hb.waitsOf[o.flag].push_back(i);
  }
  return q;
}

}  // namespace

HappensBefore computeHappensBefore(const Trace& t) {
  HappensBefore hb;
  auto q = layout(t, hb);
  std::vector<int> last(kNumPipes, -1);
  std::vector<size_t> head(kNumPipes, 0);
  std::vector<int> setsDone(t.flags.size(), 0), waitsDone(t.flags.size(), 0);
  auto join = [&](int dst, int src) {
    if (src < 0) return;
    for (int p = 0; p < kNumPipes; ++p)
      hb.vc[dst * kNumPipes + p] = std::max(hb.vc[dst * kNumPipes + p], hb.vc[src * kNumPipes + p]);
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (int p = 0; p < kNumPipes; ++p) {
      while (head[p] < q[p].size()) {
        int op = q[p][head[p]];
        const DynOp& o = t.ops[op];
        if (o.kind == DynKind::BarrierAll) {
          bool all = true;
          for (int r = 0; r < kNumPipes; ++r) all &= head[r] < q[r].size() && q[r][head[r]] == op;
          if (!all) break;
          for (int r = 0; r < kNumPipes; ++r) {
            join(op, last[r]);
            hb.vc[op * kNumPipes + r] = static_cast<int>(head[r]);
          }
          for (int r = 0; r < kNumPipes; ++r) { last[r] = op; ++head[r]; }
          progress = true;
          continue;
        }
        if (o.kind == DynKind::Wait) {
          int k = waitsDone[o.flag];
          if (k >= setsDone[o.flag]) break;
          join(op, hb.setsOf[o.flag][k]);
          ++waitsDone[o.flag];
        }
        join(op, last[p]);
        hb.vc[op * kNumPipes + p] = static_cast<int>(head[p]);
        if (o.kind == DynKind::Set) ++setsDone[o.flag];
        last[p] = op;
        ++head[p];
        progress = true;
      }
    }
  }
  for (int p = 0; p < kNumPipes; ++p) hb.complete &= head[p] == q[p].size();
  return hb;
}

std::string checkRobust(const Trace& t, const HappensBefore& hb) {
  if (!hb.complete) return "not robust: the queues deadlock";
  for (size_t f = 0; f < t.flags.size(); ++f) {
    const auto& s = hb.setsOf[f];
    const auto& w = hb.waitsOf[f];
    for (size_t k = 0; k + 1 < s.size() && k < w.size(); ++k)
      if (!hb.before(w[k], s[k + 1]))
        return "not robust: " + t.describe(w[k]) + " is not ordered before the next set " + t.describe(s[k + 1]);
  }
  std::string msg;
  forEachConflict(t, [&](int a, int b) {
    if (hb.before(a, b)) return true;
    msg = "not robust: " + conflictKind(t, a, b) + " " + t.describe(a) + " -> " + t.describe(b) +
          " is ordered only by timing";
    return false;
  });
  return msg;
}

}  // namespace gir::ascend
