// Timing a run on the pipe scheduler (AsckSchedule.h), its first violation, the ideal and barrier-all figures.
#include "codegen/ascend/asck/AsckSimulator.h"

#include <algorithm>
#include <cmath>

#include "codegen/ascend/asck/AsckConflicts.h"
#include "codegen/ascend/asck/AsckSchedule.h"

namespace gir::ascend {

const char* violationName(ViolationKind k) {
  switch (k) {
    case ViolationKind::None: return "none";
    case ViolationKind::Conflict: return "conflict";
    case ViolationKind::SetOnSet: return "set-on-set";
    case ViolationKind::Deadlock: return "deadlock";
    case ViolationKind::FlagLeftSet: return "flag-left-set";
  }
  return "?";
}

namespace {

std::string stuckMessage(const Trace& t, const PipeQueues& queues, const std::vector<size_t>& head) {
  const auto& q = queues.ops;
  for (int p = 0; p < kNumPipes; ++p) {
    if (head[p] >= q[p].size()) continue;
    int op = q[p][head[p]];
    if (t.ops[op].kind == DynKind::Wait)
      return "deadlock: " + t.describe(op) + " on pipe " + pipeName(static_cast<Pipe>(p)) +
             " waits forever: no set_flag of that flag is left to run";
  }
  for (int p = 0; p < kNumPipes; ++p)
    if (head[p] < q[p].size()) return "deadlock: pipe_barrier ALL " + t.describe(q[p][head[p]]) + " never runs";
  return "deadlock";
}

// Set-on-set, flags left set and conflicts of a drained run; the earliest in time wins.
Violation firstViolation(const Trace& t, const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                         const std::vector<std::vector<int>>& setOps, const std::vector<std::vector<int>>& waitOps,
                         SimResult& res) {
  Violation first;
  auto offer = [&](ViolationKind k, int64_t time, std::string msg) {
    if (first.kind == ViolationKind::None || time < first.time) first = {k, time, std::move(msg)};
  };
  for (size_t f = 0; f < t.flags.size(); ++f) {
    const auto& s = setOps[f];
    const auto& w = waitOps[f];
    res.sets += static_cast<int64_t>(s.size());
    res.waits += static_cast<int64_t>(w.size());
    for (size_t k = 1; k < s.size(); ++k) {
      bool consumed = k - 1 < w.size();
      // start of a wait = the instant it consumes; a consume at the instant of a set goes first.
      if (consumed && end[s[k]] >= start[w[k - 1]]) continue;
      offer(ViolationKind::SetOnSet, end[s[k]],
            "set-on-set: " + t.describe(s[k]) + " fires at " + std::to_string(end[s[k]]) + " while the flag is still set by " +
                t.describe(s[k - 1]) +
                (consumed ? ", which " + t.describe(w[k - 1]) + " consumes only at " + std::to_string(start[w[k - 1]])
                          : ", which no wait_flag consumes"));
    }
    if (s.size() > w.size())
      offer(ViolationKind::FlagLeftSet, res.makespan,
            "flag left set: " + t.describe(s[w.size()]) + " sets the flag and no wait_flag consumes it before the kernel ends");
  }
  forEachConflict(t, [&](int a, int b) {
    if (start[b] < end[a])
      offer(ViolationKind::Conflict, start[b],
            "conflict " + conflictKind(t, a, b) + ": " + t.describe(a) + " ends at " + std::to_string(end[a]) + " but " +
                t.describe(b) + " starts at " + std::to_string(start[b]));
    return true;
  });
  return first;
}

}  // namespace

SimResult simulate(const Trace& t, int syncCost, const std::vector<double>* factors, SimTimes* times) {
  SimResult res;
  PipeQueues q(t);
  std::vector<int64_t> start(t.ops.size(), -1), end(t.ops.size(), -1), ready(kNumPipes, 0);
  std::vector<std::vector<int>> setOps(t.flags.size()), waitOps(t.flags.size());
  auto dur = [&](int op) -> int64_t {
    const DynOp& o = t.ops[op];
    if (o.kind != DynKind::Instr || !factors) return o.cycles;
    return std::max<int64_t>(1, std::llround(o.cycles * (*factors)[op]));
  };
  auto step = [&](int p, int op) {
    const DynOp& o = t.ops[op];
    int64_t s = ready[p];
    if (o.kind == DynKind::Wait) {
      auto& w = waitOps[o.flag];
      if (w.size() >= setOps[o.flag].size()) return false;
      s = std::max(s, end[setOps[o.flag][w.size()]]);
      w.push_back(op);
    }
    start[op] = s;
    end[op] = s + dur(op);
    if (o.kind == DynKind::Set) setOps[o.flag].push_back(op);
    ready[p] = end[op];
    return true;
  };
  auto barrierAll = [&](int op, const std::vector<size_t>&) {
    int64_t s = *std::max_element(ready.begin(), ready.end());
    start[op] = s;
    end[op] = s + syncCost;
    std::fill(ready.begin(), ready.end(), end[op]);
  };
  std::vector<size_t> head = drivePipes(t, q, step, barrierAll);
  res.makespan = *std::max_element(ready.begin(), ready.end());
  if (!drained(q, head)) {
    res.violation = {ViolationKind::Deadlock, 0, stuckMessage(t, q, head)};
    res.makespan = 0;
  } else {
    res.violation = firstViolation(t, start, end, setOps, waitOps, res);
  }
  if (times) *times = SimTimes{std::move(start), std::move(end), std::move(setOps), std::move(waitOps)};
  return res;
}

int64_t idealMakespan(const Trace& t) {
  std::vector<int64_t> end(t.ops.size(), 0), ready(kNumPipes, 0);
  int64_t earliest = 0;
  forEachConflict(
      t,
      [&](int a, int) {
        earliest = std::max(earliest, end[a]);
        return true;
      },
      [&](int b) {
        const DynOp& o = t.ops[b];
        int64_t s = std::max(ready[o.pipe], earliest);
        end[b] = s + o.cycles;
        ready[o.pipe] = end[b];
        earliest = 0;
      });
  return *std::max_element(ready.begin(), ready.end());
}

int64_t barrierAllMakespan(const Trace& t, int syncCost) {
  std::vector<int64_t> ready(kNumPipes, 0);
  int prevPipe = -1;
  for (const auto& o : t.ops) {
    if (o.kind != DynKind::Instr) continue;
    if (prevPipe >= 0 && o.pipe != prevPipe) {
      int64_t s = *std::max_element(ready.begin(), ready.end()) + syncCost;
      std::fill(ready.begin(), ready.end(), s);
    }
    ready[o.pipe] += o.cycles;
    prevPipe = o.pipe;
  }
  return *std::max_element(ready.begin(), ready.end());
}

}  // namespace gir::ascend
