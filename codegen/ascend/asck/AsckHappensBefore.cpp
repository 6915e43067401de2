// Vector clocks over a trace and the robust check of docs/ascend.md, "Correctness and figures".
#include <algorithm>

#include "codegen/ascend/asck/AsckConflicts.h"
#include "codegen/ascend/asck/AsckSchedule.h"
#include "codegen/ascend/asck/AsckSimulator.h"

namespace gir::ascend {

namespace {

// Each op's queue position and pipe, and the sets/waits of each flag in queue order.
void layout(const Trace& t, const PipeQueues& q, HappensBefore& hb) {
  size_t n = t.ops.size();
  hb.seq.assign(n, -1);
  hb.opPipe.assign(n, 0);
  hb.vc.assign(n * kNumPipes, -1);
  hb.setsOf.assign(t.flags.size(), {});
  hb.waitsOf.assign(t.flags.size(), {});
  for (int p = 0; p < kNumPipes; ++p)
    for (size_t k = 0; k < q.ops[p].size(); ++k) {
      int i = q.ops[p][k];
      if (t.ops[i].kind == DynKind::BarrierAll) continue;
      hb.seq[i] = static_cast<int>(k);
      hb.opPipe[i] = p;
    }
  for (int i = 0; i < static_cast<int>(n); ++i) {
    const DynOp& o = t.ops[i];
    if (o.kind == DynKind::Set) hb.setsOf[o.flag].push_back(i);
    if (o.kind == DynKind::Wait) hb.waitsOf[o.flag].push_back(i);
  }
}

}  // namespace

HappensBefore computeHappensBefore(const Trace& t) {
  HappensBefore hb;
  PipeQueues q(t);
  layout(t, q, hb);
  std::vector<int> last(kNumPipes, -1);
  std::vector<int> setsDone(t.flags.size(), 0), waitsDone(t.flags.size(), 0);
  auto join = [&](int dst, int src) {
    if (src < 0) return;
    for (int p = 0; p < kNumPipes; ++p)
      hb.vc[dst * kNumPipes + p] = std::max(hb.vc[dst * kNumPipes + p], hb.vc[src * kNumPipes + p]);
  };
  auto step = [&](int p, int op) {
    const DynOp& o = t.ops[op];
    if (o.kind == DynKind::Wait) {
      int k = waitsDone[o.flag];
      if (k >= setsDone[o.flag]) return false;
      join(op, hb.setsOf[o.flag][k]);
      ++waitsDone[o.flag];
    }
    join(op, last[p]);
    hb.vc[op * kNumPipes + p] = hb.seq[op];
    if (o.kind == DynKind::Set) ++setsDone[o.flag];
    last[p] = op;
    return true;
  };
  auto barrierAll = [&](int op, const std::vector<size_t>& head) {
    for (int r = 0; r < kNumPipes; ++r) {
      join(op, last[r]);
      hb.vc[op * kNumPipes + r] = static_cast<int>(head[r]);
    }
    for (int r = 0; r < kNumPipes; ++r) last[r] = op;
  };
  hb.complete = drained(q, drivePipes(t, q, step, barrierAll));
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
