// Stage 3 of the GIR -> .asck lowering (FromGir.h): one loop nest per UnitNest, in phase order; per node and
// unit, MTE2 loads of GM operands into staging tiles, the node on its pipe (MTE2 for GM -> UB moves, MTE3 for
// UB -> GM, V for UB -> UB and every compute), and an MTE3 store of a staged output. Also the pipeline
// lowerGirToAsck and the printed form with its header comment.
#include "codegen/ascend/lower/FromGir.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "codegen/ascend/asck/AsckPrinter.h"
#include "core/gir/MemoryChecker.h"
#include "core/gir/Printer.h"
#include "core/gir/Verifier.h"

namespace gir::ascend {

namespace {

constexpr int64_t kElemBytes = 4;

std::string opName(const Node& n) {
  switch (n.kind()) {
    case NodeKind::Move: return "copy";
    case NodeKind::Elementwise: return std::string(elementwiseName(std::get<ElementwisePayload>(n.payload).op));
    case NodeKind::Reduce: return "reduce_" + std::string(reduceName(std::get<ReducePayload>(n.payload).op));
    case NodeKind::Broadcast: return "broadcast";
    case NodeKind::Sync: break;
  }
  GIR_UNREACHABLE("syncs are not emitted");
}

class Emitter {
 public:
  Emitter(const Graph& g, AsckLowering& out, const FromGirOptions& opt) : g_(g), out_(out), opt_(opt) {}
  void run();

 private:
  void emitNode(int ni, NodeId id, std::vector<Stmt>& body);
  RegionRef girRef(int ni, SliceId s) const;
  RegionRef stageRef(int ni, int member) const;
  RegionRef slotRef(int ni, const BufferLayout& bl) const;
  void push(std::vector<Stmt>& body, Pipe pipe, const std::string& op, const std::string& label, int64_t bytes,
            std::vector<RegionRef> dsts, std::vector<RegionRef> srcs, InstrOrigin origin);
  bool inGm(SliceId s) const { return out_.layout.buffers[out_.layout.ofGir.at(g_.slice(s).buffer.value)].decl.mem == Mem::GM; }
  int64_t bytesOf(SliceId s) const { return g_.slice(s).numel() * kElemBytes; }

  const Graph& g_;
  AsckLowering& out_;
  const FromGirOptions& opt_;
};

// Slot (iteration % slots) of a per-unit or staging member; the whole buffer when it has one slot.
RegionRef Emitter::slotRef(int ni, const BufferLayout& bl) const {
  RegionRef r;
  r.buffer = bl.asck;
  int64_t slots = bl.slots;
  if (slots <= 1) return r;
  r.whole = false;
  const UnitNest& nest = out_.plan.nests[ni];
  int64_t weight = 1;
  for (size_t k = nest.loops.size(); k-- > 0;) {
    r.index.terms.insert(r.index.terms.begin(), {weight, nest.loops[k].var});
    weight *= nest.loops[k].trip;
  }
  if (!nest.loops.empty()) r.index.mod = slots;
  return r;
}

RegionRef Emitter::girRef(int ni, SliceId s) const {
  const BufferLayout& bl = out_.layout.buffers[out_.layout.ofGir.at(g_.slice(s).buffer.value)];
  if (bl.kind == LayoutKind::PrivateUb) return slotRef(ni, bl);
  RegionRef r;
  r.buffer = bl.asck;
  if (bl.tileElems == 0) return r;
  r.whole = false;
  r.index = out_.layout.tileIndex.at({ni, s.value});
  return r;
}

RegionRef Emitter::stageRef(int ni, int member) const { return slotRef(ni, out_.layout.buffers[member]); }

void Emitter::push(std::vector<Stmt>& body, Pipe pipe, const std::string& op, const std::string& label, int64_t bytes,
                   std::vector<RegionRef> dsts, std::vector<RegionRef> srcs, InstrOrigin origin) {
  Stmt st;
  st.kind = StmtKind::Instr;
  st.instr.pipe = pipe;
  st.instr.op = op;
  st.instr.label = label;
  st.instr.dsts = std::move(dsts);
  st.instr.srcs = std::move(srcs);
  if (opt_.sizedCycles) {
    int64_t rate = pipe == Pipe::V ? opt_.vectorBytesPerCycle : opt_.mteBytesPerCycle;
    int64_t c = opt_.latencies.latency[static_cast<int>(pipe)] + (bytes + rate - 1) / rate;
    st.instr.cycles = static_cast<int>(std::min<int64_t>(c, 1 << 30));
  }
  body.push_back(std::move(st));
  out_.origins.push_back(std::move(origin));
}

void Emitter::emitNode(int ni, NodeId id, std::vector<Stmt>& body) {
  const Node& n = g_.node(id);
  std::string tag = "n" + std::to_string(id.value) + "_";
  SliceId outSlice = n.outputs[0];
  if (n.isMove() && !(inGm(n.inputs[0]) && inGm(outSlice))) {
    Pipe p = inGm(n.inputs[0]) ? Pipe::MTE2 : inGm(outSlice) ? Pipe::MTE3 : Pipe::V;
    push(body, p, "copy", tag + "copy", bytesOf(outSlice), {girRef(ni, outSlice)}, {girRef(ni, n.inputs[0])},
         {id, InstrRole::Main, ni, {outSlice}, {n.inputs[0]}});
    return;
  }
  std::vector<RegionRef> srcs;
  int64_t widest = bytesOf(outSlice);
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    SliceId s = n.inputs[k];
    widest = std::max(widest, bytesOf(s));
    if (!inGm(s)) {
      srcs.push_back(girRef(ni, s));
      continue;
    }
    RegionRef st = stageRef(ni, out_.layout.staging.at({id.value, static_cast<int>(k)}));
    push(body, Pipe::MTE2, "copy", tag + "ld" + std::to_string(k), bytesOf(s), {st}, {girRef(ni, s)},
         {id, InstrRole::StageIn, ni, {s}, {s}});
    srcs.push_back(st);
  }
  if (n.isMove()) {  // GM -> GM: the staged copy goes straight back out
    push(body, Pipe::MTE3, "copy", tag + "copy", bytesOf(outSlice), {girRef(ni, outSlice)}, srcs,
         {id, InstrRole::Main, ni, {outSlice}, {n.inputs[0]}});
    return;
  }
  bool staged = inGm(outSlice);
  RegionRef dst = staged ? stageRef(ni, out_.layout.staging.at({id.value, -1})) : girRef(ni, outSlice);
  push(body, Pipe::V, opName(n), tag + opName(n), widest, {dst}, srcs, {id, InstrRole::Main, ni, {outSlice}, n.inputs});
  if (staged)
    push(body, Pipe::MTE3, "copy", tag + "st", bytesOf(outSlice), {girRef(ni, outSlice)}, {dst},
         {id, InstrRole::StageOut, ni, {outSlice}, {outSlice}});
}

void Emitter::run() {
  Program& p = out_.program;
  p.buffers = out_.layout.decls;
  for (size_t ni = 0; ni < out_.plan.nests.size(); ++ni) {
    const UnitNest& nest = out_.plan.nests[ni];
    std::vector<Stmt> body;
    for (NodeId id : nest.nodes) emitNode(static_cast<int>(ni), id, body);
    for (size_t k = nest.loops.size(); k-- > 0;) {
      Stmt loop;
      loop.kind = StmtKind::Loop;
      loop.var = nest.loops[k].var;
      loop.trip = nest.loops[k].trip;
      loop.body = std::move(body);
      body.clear();
      body.push_back(std::move(loop));
    }
    for (auto& st : body) p.body.push_back(std::move(st));
  }
  numberStmts(p);
}

std::string describeNest(const Graph& g, const UnitNest& nest, size_t ni) {
  std::ostringstream os;
  os << "nest " << ni << ": phase " << nest.phase << ", units [" << nest.begin << "," << nest.end << ") = " << nest.base;
  for (const auto& l : nest.loops) os << " + " << l.stride << "*" << l.var << " (" << l.var << " < " << l.trip << ")";
  os << "; nodes";
  for (NodeId id : nest.nodes) os << " n" << id.value << "=" << nodeKindName(g.node(id).kind());
  return os.str();
}

std::vector<std::string> describe(const Graph& g, const AsckLowering& low, const FromGirOptions& opt) {
  std::vector<std::string> notes;
  notes.push_back("lowered from GIR @" + g.name + ": " + std::to_string(g.units) + " units as loop iterations on one AI Core, " +
                  std::to_string(low.plan.phases) + " phase(s) split " +
                  (opt.phases == PhaseSplit::Data ? "where data crosses units, " : "at block/device syncs, ") +
                  std::to_string(low.plan.nests.size()) + " loop nest(s)");
  for (size_t ni = 0; ni < low.plan.nests.size(); ++ni) notes.push_back(describeNest(g, low.plan.nests[ni], ni));
  for (const auto& bl : low.layout.buffers) {
    std::string line = "buffer " + bl.decl.name + ": " + layoutKindName(bl.kind);
    if (low.layout.decls[bl.asck].name != bl.decl.name) line = "buffer " + low.layout.decls[bl.asck].name + " holds " + layoutKindName(bl.kind);
    if (bl.kind == LayoutKind::Staging) {
      line += " for n" + std::to_string(bl.node.value) + (bl.operand < 0 ? " output" : " input " + std::to_string(bl.operand));
    } else {
      const std::string& name = g.buffer(bl.gir).name;
      line += ", GIR %" + name + (bl.spilled ? " (spilled)" : "");
      if (auto it = opt.tensorOf.find(name); it != opt.tensorOf.end()) line += " (tensor '" + it->second + "')";
    }
    if (bl.slots > 1) line += ", " + std::to_string(bl.slots) + " slots (double buffered)";
    else if (bl.tileElems > 0) line += ", tiles of " + std::to_string(bl.tileElems) + " elements";
    notes.push_back(line);
  }
  notes.push_back("UB use: " + std::to_string(low.layout.ubBytes) + " of " + std::to_string(opt.ubCapacityBytes) + " bytes");
  for (const auto& n : low.layout.notes) notes.push_back(n);
  return notes;
}

std::string kernelName(const std::string& n) {
  std::string s;
  for (char c : n) s += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return s.empty() ? "kernel" : s;
}

}  // namespace

// One program order must do for every unit: a race (or a read of nothing) leaves the GIR without one.
// Capacity findings are the GIR target's matter; UB is budgeted by layoutBuffers.
static Status raceFree(const Graph& g) {
  auto rep = checkMemoryModel(g, randomInputs(g, 1));
  if (!rep) return rep.takeError();
  const MemoryFinding* f = rep->firstBeyondCapacity();
  if (!f) return success();
  return makeError("the GIR graph has no single program order to lower: " + std::string(findingKindName(f->kind)) + ": " + f->message,
                   SourceLocation{"", 0, 0, f->secondNode.valid() ? describeNode(g, f->secondNode) : ""});
}

Expected<UnitPlan> prepareGir(const Graph& g, PhaseSplit phases) {
  if (auto st = verifyGraph(g); !st) return st.takeError();
  if (auto st = raceFree(g); !st) return st.takeError();
  return planUnitLoops(g, phases);
}

Expected<AsckLowering> lowerPlanned(const Graph& g, const UnitPlan& prepared, const FromGirOptions& opt) {
  UnitPlan plan = prepared;
  if (auto st = nestUnitLoops(g, plan, tileDivisors(g, plan)); !st) return st.takeError();
  auto lay = layoutBuffers(g, plan, opt);
  std::optional<std::string> fallback;
  if (!lay && plan.consumerOrder != plan.order) {
    // Early loads overflowed UB: each load at its first consumer, the order the plan's capacity was checked in.
    fallback = "loads placed at their first consumer: with every load early, " + lay.error().message;
    plan.order = plan.consumerOrder;
    if (auto st = nestUnitLoops(g, plan, tileDivisors(g, plan)); !st) return st.takeError();
    lay = layoutBuffers(g, plan, opt);
  }
  if (!lay) return lay.takeError();
  if (fallback) lay->notes.push_back(*fallback);
  AsckLowering low;
  low.plan = std::move(plan);
  low.layout = std::move(*lay);
  low.program.name = kernelName(g.name);
  low.program.target = opt.target;
  Emitter(g, low, opt).run();
  low.notes = describe(g, low, opt);
  return low;
}

Expected<AsckLowering> lowerGirToAsck(const Graph& g, const FromGirOptions& opt) {
  auto plan = prepareGir(g, opt.phases);
  if (!plan) return plan.takeError();
  return lowerPlanned(g, *plan, opt);
}

std::string printLowering(const AsckLowering& low) {
  std::string out;
  for (const auto& n : low.notes) out += "# " + n + "\n";
  return out + printAsck(low.program);
}

}  // namespace gir::ascend
