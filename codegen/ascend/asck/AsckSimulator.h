// The timed model of docs/ascend.md ("The machine", "Correctness and figures") for one trace, its
// happens-before structure (queue order, set -> wait edges, barriers) for the latency-independent
// "robust" property, and the ideal and barrier-all makespans (the same doc's figures).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ascend/asck/AsckTrace.h"

namespace gir::ascend {

enum class ViolationKind { None, Conflict, SetOnSet, Deadlock, FlagLeftSet };
const char* violationName(ViolationKind k);

struct Violation {
  ViolationKind kind = ViolationKind::None;
  int64_t time = 0;
  std::string message;
};

struct SimResult {
  Violation violation;  // the earliest one; kind None when the run is correct
  int64_t makespan = 0;
  int64_t sets = 0, waits = 0;
  bool ok() const { return violation.kind == ViolationKind::None; }
};

// Each op's start and end (-1 when a deadlock left it unrun) and each flag's sets and waits in the order
// they ran: what the app's timeline draws.
struct SimTimes {
  std::vector<int64_t> start, end;
  std::vector<std::vector<int>> sets, waits;  // per flag (Trace::flags), op indices
};

// factors: per dynamic op (instructions only are scaled); null = nominal latencies. times: filled when given,
// also after a deadlock (with the ops that ran).
SimResult simulate(const Trace& t, int syncCost, const std::vector<double>* factors, SimTimes* times = nullptr);

// Vector clocks over the trace: vc[op * kNumPipes + p] = highest queue position of pipe p that
// happens before (or is) op. complete = false when the queues cannot drain (deadlock).
struct HappensBefore {
  bool complete = true;
  std::vector<int> seq;  // position of each op in its queue
  std::vector<int> vc;
  std::vector<std::vector<int>> setsOf, waitsOf;  // per flag, op indices in queue order
  bool before(int a, int b) const { return vc[static_cast<size_t>(b) * kNumPipes + opPipe[a]] >= seq[a]; }
  std::vector<int> opPipe;
};
HappensBefore computeHappensBefore(const Trace& t);

// Robust (docs/ascend.md, "Correctness and figures"): every conflicting pair and every (wait k, set k+1) pair ordered by
// happens-before alone. Returns an empty string when robust, else the first unordered pair.
std::string checkRobust(const Trace& t, const HappensBefore& hb);

// The ideal and barrier-all figures on a sync-free trace: every conflict kept directly at zero cost, and
// pipe_barrier ALL between consecutive instructions on different pipes.
int64_t idealMakespan(const Trace& input);
int64_t barrierAllMakespan(const Trace& input, int syncCost);

}  // namespace gir::ascend
