// The Ascend inspector's data (docs/app.md, "Tabs", Ascend): a kernel loaded, its sync insertion stage by
// stage, and a timed run of the output on the simulator's model (in-order pipe queues, a wait starts
// when the matching set has finished) with each op's start and end, the set -> wait pairs and each
// flag's live intervals per pipe pair. Pure C++; the app draws it, tests compare it with simulate().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ascend/asck/AsckProgram.h"
#include "codegen/ascend/asck/AsckTarget.h"
#include "codegen/ascend/asck/AsckTrace.h"
#include "codegen/ascend/sync/FlagInsertion.h"
#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::viz {

struct TimedOp {
  int op = 0;  // index into Trace::ops
  int pipe = 0;
  int64_t start = 0, end = 0;
};

struct SetWaitArrow {
  int setOp = 0, waitOp = 0;
  int flag = 0;  // dense flag index of the trace
};

struct FlagInterval {
  int64_t begin = 0, end = 0;  // from the set's completion to the wait consuming it
  int setOp = 0, waitOp = -1;  // waitOp -1: never consumed (live to the end)
};

// One row of the flag view: one flag ID of one ordered pipe pair.
struct FlagRow {
  int src = 0, dst = 0, id = 0;
  std::vector<FlagInterval> intervals;
};

struct AscendTimeline {
  std::vector<TimedOp> ops;  // every op that ran, in trace order (BarrierAll once, pipe -1)
  std::vector<SetWaitArrow> arrows;
  std::vector<FlagRow> flagRows;  // sorted by (src, dst, id)
  int64_t makespan = 0;
  bool deadlock = false;  // the queues could not drain; ops holds what ran
};

// Schedules a trace (the timing rules of docs/ascend.md, "The machine", as ascend::simulate applies them).
AscendTimeline scheduleTrace(const ascend::Trace& t, int syncCost);

// Flag IDs used per ordered pipe pair (src, dst) -> count of distinct IDs in the rows.
std::vector<std::tuple<int, int, int>> idsPerPipePair(const AscendTimeline& tl);

// Chrome trace event JSON (opens in Perfetto): one thread per pipe, an "X" event per op, a flow
// arrow per set -> wait.
std::string chromeTraceJson(const AscendTimeline& tl, const ascend::Trace& t, const std::string& kernelName);

struct AscendStage {
  std::string name;  // "input", the insertion stages, "output"
  std::string text;
};

// A kernel as the inspector shows it. An input (no sync lines) runs the insertion with dumps; an
// output (with sync lines) is validated against the target and shown as is.
struct AscendKernel {
  ascend::Program input;   // as loaded
  ascend::Program output;  // with syncs
  ascend::Target target;
  std::vector<AscendStage> stages;
  ascend::InsertStats stats;
  bool inserted = false;   // the insertion ran here
  ascend::Trace trace;     // of `output`, every if taking its then-branch
  AscendTimeline timeline;
};

Expected<AscendKernel> loadAscendKernel(const std::string& path);
Expected<AscendKernel> analyzeAscendText(const std::string& text, const std::string& path);
// A GIR-Graph lowered to one AI Core's .asck program for Ascend target `targetName` (ascend910,
// ascend910b; codegen/ascend/lower/FromGir.h), its lowering checked against the GIR interpreter, then
// analyzed as an input kernel (the insertion with its stage dumps, the timeline). Seconds at real
// sizes: the app runs it on a worker.
Expected<AscendKernel> lowerGirToAscendKernel(const Graph& g, const std::string& targetName);

}  // namespace gir::viz
