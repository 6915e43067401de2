// The simulator's schedule of a trace as lanes, flag rows and arrows, and the Chrome trace export.
#include "viz/AscendTimeline.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "codegen/ascend/asck/AsckParser.h"
#include "codegen/ascend/asck/AsckPrinter.h"
#include "codegen/ascend/asck/AsckSimulator.h"
#include "codegen/ascend/asck/AsckValidator.h"
#include "codegen/ascend/lower/FromGir.h"
#include "core/hw/HardwareDesc.h"
#include "core/AtomicFile.h"

namespace gir::viz {

using namespace gir::ascend;

// The simulator's own schedule (codegen/ascend/asck/AsckSchedule.h), drawn: no second scheduler here.
AscendTimeline scheduleTrace(const Trace& t, int syncCost) {
  SimTimes s;
  AscendTimeline tl;
  tl.deadlock = simulate(t, syncCost, nullptr, &s).violation.kind == ViolationKind::Deadlock;
  for (int i = 0; i < static_cast<int>(t.ops.size()); ++i) {
    if (s.start[i] < 0) continue;
    int pipe = t.ops[i].kind == DynKind::BarrierAll ? -1 : t.ops[i].pipe;
    tl.ops.push_back({i, pipe, s.start[i], s.end[i]});
    tl.makespan = std::max(tl.makespan, s.end[i]);
  }
  std::map<std::tuple<int, int, int>, FlagRow> rows;
  for (size_t f = 0; f < t.flags.size(); ++f) {
    const FlagKey& k = t.flags[f];
    FlagRow& row = rows[{k.src, k.dst, k.id}];
    row.src = k.src;
    row.dst = k.dst;
    row.id = k.id;
    for (size_t j = 0; j < s.sets[f].size(); ++j) {
      int setOp = s.sets[f][j];
      bool consumed = j < s.waits[f].size();
      int waitOp = consumed ? s.waits[f][j] : -1;
      row.intervals.push_back({s.end[setOp], consumed ? s.start[waitOp] : tl.makespan, setOp, waitOp});
      if (consumed) tl.arrows.push_back({setOp, waitOp, static_cast<int>(f)});
    }
  }
  for (auto& [key, row] : rows) tl.flagRows.push_back(std::move(row));
  return tl;
}

std::vector<std::tuple<int, int, int>> idsPerPipePair(const AscendTimeline& tl) {
  std::map<std::pair<int, int>, int> count;
  for (const FlagRow& r : tl.flagRows) ++count[{r.src, r.dst}];
  std::vector<std::tuple<int, int, int>> out;
  for (const auto& [pair, n] : count) out.emplace_back(pair.first, pair.second, n);
  return out;
}

static std::string opName(const Trace& t, const DynOp& o) {
  switch (o.kind) {
    case DynKind::Instr: return o.stmt ? describeInstr(*o.stmt) : "instr";
    case DynKind::Set:
    case DynKind::Wait:
    case DynKind::Barrier: return o.stmt ? describeSync(o.stmt->sync) : "sync";
    case DynKind::BarrierAll: return "pipe_barrier ALL";
  }
  (void)t;
  return "?";
}

std::string chromeTraceJson(const AscendTimeline& tl, const Trace& t, const std::string& kernelName) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", kernelName}}}});
  for (int p = 0; p < kNumPipes; ++p)
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", p}, {"args", {{"name", pipeName(static_cast<Pipe>(p))}}}});
  for (const TimedOp& op : tl.ops) {
    const DynOp& o = t.ops[op.op];
    nlohmann::json e = {{"name", opName(t, o)}, {"ph", "X"}, {"pid", 0}, {"tid", std::max(op.pipe, 0)},
                        {"ts", op.start}, {"dur", op.end - op.start}};
    std::string it = t.iteration(o);
    if (!it.empty()) e["args"] = {{"iteration", it}};
    events.push_back(e);
  }
  int flow = 0;
  for (const SetWaitArrow& a : tl.arrows) {
    const DynOp& s = t.ops[a.setOp];
    const DynOp& w = t.ops[a.waitOp];
    int64_t setEnd = 0, waitStart = 0;
    for (const TimedOp& op : tl.ops) {
      if (op.op == a.setOp) setEnd = op.end;
      if (op.op == a.waitOp) waitStart = op.start;
    }
    events.push_back({{"name", "flag"}, {"cat", "flag"}, {"ph", "s"}, {"id", flow}, {"pid", 0}, {"tid", s.pipe}, {"ts", std::max<int64_t>(setEnd - 1, 0)}});
    events.push_back({{"name", "flag"}, {"cat", "flag"}, {"ph", "f"}, {"bp", "e"}, {"id", flow}, {"pid", 0}, {"tid", w.pipe}, {"ts", waitStart}});
    ++flow;
  }
  nlohmann::json root = {{"traceEvents", events}, {"displayTimeUnit", "ns"}, {"otherData", {{"kernel", kernelName}, {"unit", "cycles"}}}};
  return root.dump(1) + "\n";
}

Expected<AscendKernel> analyzeAscendText(const std::string& text, const std::string& path) {
  auto prog = parseAsck(text, path);
  if (!prog) return prog.takeError();
  std::string dir = std::filesystem::path(path).parent_path().string();
  auto target = loadTarget(prog->target, dir);
  if (!target) return target.takeError();
  AscendKernel k;
  k.input = *prog;
  k.target = *target;
  k.stages.push_back({"input", printAsck(*prog)});
  if (hasSync(prog->body)) {
    if (auto ok = validateOutput(*prog, text, target->flags); !ok) return ok.takeError();
    k.output = *prog;
  } else {
    if (auto ok = validateInput(*prog, text); !ok) return ok.takeError();
    InsertOptions opt;
    opt.flags = target->flags;
    opt.target = &*target;
    opt.keepDumps = true;
    auto res = insertSync(*prog, opt);
    if (!res) return res.takeError();
    for (const StageDump& d : res->dumps) k.stages.push_back({d.name, d.text});
    k.output = res->output;
    k.stats = res->stats;
    k.inserted = true;
  }
  k.stages.push_back({"output", printAsck(k.output)});
  k.trace = buildTrace(k.output, k.target, [] { return true; });
  k.timeline = scheduleTrace(k.trace, k.target.syncCost);
  return k;
}

Expected<AscendKernel> loadAscendKernel(const std::string& path) {
  auto text = readWholeFile(path);
  if (!text) return text.takeError();
  return analyzeAscendText(*text, path);
}

Expected<AscendKernel> lowerGirToAscendKernel(const Graph& g, const std::string& targetName) {
  auto hw = loadHardwareByName(targetName);
  if (!hw) return hw.takeError();
  const MemoryLevelDesc* ub = hw->level("ub");
  if (!hw->ascend || !ub) return makeError("'" + targetName + "' is not an Ascend target (no UB, no flags)");
  auto target = ascend::loadTarget(targetName, "");
  if (!target) return target.takeError();
  ascend::FromGirOptions opt;
  opt.target = targetName;
  opt.ubCapacityBytes = ub->capacityBytes;
  opt.latencies = *target;
  auto low = ascend::lowerGirToAsck(g, opt);
  if (!low) return low.takeError();
  if (auto st = ascend::checkLowering(g, *low); !st)
    return makeError("the lowered program does not read what the GIR interpreter reads: " + st.error().message);
  return analyzeAscendText(ascend::printLowering(*low), g.name + ".asck (lowered from the GIR-Graph)");
}

}  // namespace gir::viz
