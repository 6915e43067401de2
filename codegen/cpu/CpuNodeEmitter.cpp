// One gOperator as C++ loops for one unit: base pointers from the slice offsets and the buffer's
// placement, the node's loop nest (codegen/schedule/LoopNest.h), `#pragma omp simd` on the innermost
// loop, packing of staged operands, and in instrumented builds the byte count of every device access.
#include "codegen/cpu/CpuNodeEmitter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>

#include "codegen/cpu/EmittedArithmetic.h"
#include "codegen/cpu/PhaseSplit.h"
#include "codegen/cpu/StreamingStores.h"
#include "codegen/schedule/LoopInvariants.h"
#include "codegen/schedule/SumPrecision.h"
#include "core/gir/Printer.h"

namespace gir::codegen::cpu {

void CodeWriter::line(const std::string& text) {
  if (!text.empty()) text_.append(static_cast<size_t>(indent_) * 2, ' ');
  text_ += text;
  text_ += "\n";
}

static std::string intLiteral(int64_t v) {
  std::string s = std::to_string(v);
  return std::llabs(v) > 2147483647LL ? s + "LL" : s;
}

std::string affineExpr(const AffineIndex& a) {
  std::string out;
  auto add = [&](int64_t coeff, const std::string& var) {
    if (coeff == 0) return;
    std::string mag = std::llabs(coeff) == 1 && !var.empty() ? var : intLiteral(std::llabs(coeff)) + (var.empty() ? "" : "*" + var);
    if (out.empty()) out = coeff < 0 ? "-" + mag : mag;
    else out += (coeff < 0 ? " - " : " + ") + mag;
  };
  for (const UnitTerm& t : a.terms()) {
    switch (t.kind) {
      case UnitTermKind::Identity: add(t.coeff, "u"); break;
      case UnitTermKind::Div: add(t.coeff, "(u/" + std::to_string(t.divisor) + ")"); break;
      case UnitTermKind::Mod: add(t.coeff, "(u%" + std::to_string(t.divisor) + ")"); break;
    }
  }
  add(a.constant(), "");
  return out.empty() ? "0" : out;
}

std::string visitedBlockExpr(const BlockOrder& order, const std::string& t) {
  return "(" + t + " % " + std::to_string(order.steps) + ") * " + std::to_string(order.period) + " + " + t + " / " + std::to_string(order.steps);
}

std::string floatLiteral(double v) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "-INFINITY";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(static_cast<float>(v)));
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

namespace {

// `lastSuffix` names the innermost loop's index of a paired body's second copy (`i2_1`).
std::string indexExpr(const std::vector<int64_t>& strides, const std::string& lastSuffix = "") {
  std::string out;
  for (size_t d = 0; d < strides.size(); ++d) {
    if (strides[d] == 0) continue;
    std::string name = "i" + std::to_string(d) + (d + 1 == strides.size() ? lastSuffix : "");
    std::string term = name + (strides[d] == 1 ? "" : "*" + intLiteral(strides[d]));
    out += out.empty() ? term : " + " + term;
  }
  return out.empty() ? "0" : out;
}

// Loops over ext[from, to); the pragma (if any) goes in front of the first of the `pragmaDepth`
// innermost loops (collapse for more than one).
template <typename Body>
void emitLoops(CodeWriter& w, const std::vector<int64_t>& ext, size_t from, size_t to, const std::string& pragma,
               size_t pragmaDepth, Body body) {
  for (size_t d = from; d < to; ++d) {
    if (!pragma.empty() && d + pragmaDepth == to)
      w.line("#pragma " + pragma + (pragmaDepth > 1 ? " collapse(" + std::to_string(pragmaDepth) + ")" : ""));
    std::string i = "i" + std::to_string(d);
    w.open("for (int64_t " + i + " = 0; " + i + " < " + intLiteral(ext[d]) + "; ++" + i + ")");
  }
  body();
  for (size_t d = from; d < to; ++d) w.close();
}

}  // namespace

InstanceOffset instanceOffset(const EmitContext& c, SliceId sid) {
  const MemorySlice& s = c.g.slice(sid);
  const BufferPlan& p = c.schedule.buffers[s.buffer.value];
  InstanceOffset r{s.offset, ""};
  switch (p.placement) {
    case Placement::Global: break;
    case Placement::PerBlockUnits:
      r.unitPrefix = "(u - u0)*" + intLiteral(p.instanceSize) + " + ";
      [[fallthrough]];
    case Placement::PerUnit:
      if (!p.affine) {  // a private instance whose slices sit at fixed places in it (Schedule::sliceRel)
        r.offset = AffineIndex(c.schedule.sliceRel[sid.value]);
        break;
      }
      r.offset.addTerm(UnitTermKind::Identity, 1, -p.loStride);
      r.offset.addConstant(-p.loBase);
      break;
    case Placement::PerBlock:
      if (c.schedule.unitsPerBlock == 1) r.offset.addTerm(UnitTermKind::Identity, 1, -p.loStride);
      else r.offset.addTerm(UnitTermKind::Div, c.schedule.unitsPerBlock, -p.loStride);
      r.offset.addConstant(-p.loBase);
      break;
  }
  return r;
}

// The op table's renderings (core/gir/ScalarOps.h) with the CPU's replacements, same meaning, spelled so
// that GCC vectorizes them: exp, sigmoid, tanh and erf are the prelude's polynomials (docs/cpu.md, "exp"),
// max, min and relu the prelude's girMax / girMin (fmaxf's and fminf's NaN rule in selects).
std::string elementwiseExpr(ElementwiseOp op, const std::vector<std::string>& a) {
  switch (op) {
    case ElementwiseOp::Exp: return renderPattern("girExp($0)", a);
    case ElementwiseOp::Sigmoid: return renderPattern("girSigmoid($0)", a);
    case ElementwiseOp::Tanh: return renderPattern("girTanh($0)", a);
    case ElementwiseOp::Erf: return renderPattern("girErf($0)", a);
    case ElementwiseOp::Max: return renderPattern("girMax($0, $1)", a);
    case ElementwiseOp::Min: return renderPattern("girMin($0, $1)", a);
    case ElementwiseOp::Relu: return renderPattern("girMax($0, 0.0f)", a);
    default: return renderElementwise(op, a);
  }
}

namespace {

// Base pointer of a slice for unit u, from the buffer's placement.
std::string sliceBase(const EmitContext& c, SliceId sid) {
  const std::string& name = c.names[c.g.slice(sid).buffer.value];
  InstanceOffset at = instanceOffset(c, sid);
  const std::string& prefix = at.unitPrefix;
  std::string e = affineExpr(at.offset);
  if (e == "0") return prefix.empty() ? name : name + " + " + prefix.substr(0, prefix.size() - 3);
  return name + " + (" + prefix + e + ")";
}

std::string sliceComment(const EmitContext& c, SliceId sid) {
  const MemorySlice& s = c.g.slice(sid);
  std::string shape;
  for (int64_t e : s.shape) shape += (shape.empty() ? "" : ",") + std::to_string(e);
  return "%" + c.g.buffer(s.buffer).name + "[" + s.offset.str() + " +: " + shape + "]";
}

bool isDevice(const EmitContext& c, SliceId sid) { return c.schedule.buffers[c.g.slice(sid).buffer.value].deviceLevel; }

void count(CodeWriter& w, const EmitContext& c, int accesses) {
  if (c.instrument && accesses > 0) w.line("GIR_COUNT(" + std::to_string(4 * accesses) + ");");
}

void declareTemp(CodeWriter& w, const std::string& name, int64_t elements, const std::string& type = "float") {
  if (elements <= 16384) {
    w.line("alignas(64) " + type + " " + name + "[" + intLiteral(elements) + "];");
    return;
  }
  w.line("std::vector<" + type + "> " + name + "_v(" + intLiteral(elements) + ");");
  w.line(type + "* const " + name + " = " + name + "_v.data();");
}

// Copies a slice to or from a contiguous temporary in element order (staged operands).
void emitPack(CodeWriter& w, const EmitContext& c, SliceId sid, const std::string& slicePtr, const std::string& temp, bool toTemp) {
  const MemorySlice& s = c.g.slice(sid);
  std::vector<int64_t> ext, str;
  for (size_t d = 0; d < s.shape.size(); ++d)
    if (s.shape[d] != 1) ext.push_back(s.shape[d]), str.push_back(s.strides[d]);
  std::string sliceAt = slicePtr + "[" + indexExpr(str) + "]", tempAt = temp + "[" + indexExpr(denseStrides(ext)) + "]";
  w.line(std::string("// ") + (toTemp ? "pack " : "unpack ") + sliceComment(c, sid) + " in element order");
  emitLoops(w, ext, 0, ext.size(), "omp simd", 1, [&] {
    w.line(toTemp ? tempAt + " = " + sliceAt + ";" : sliceAt + " = " + tempAt + ";");
    count(w, c, isDevice(c, sid) ? 1 : 0);
  });
}

// The names the loops read and write: the slice's base pointer, or its temporary when staged.
struct Operands {
  std::vector<std::string> in;
  std::string out;
};

// The value a move, broadcast or elementwise node computes from its operands' expressions; a divisor
// the same on every innermost iteration is inverted once (GCC hoists `1.0f / s` out of the loop).
std::string mapValue(const EmitContext& c, const Node& n, const std::vector<std::string>& operands, bool invariantDivisor = false) {
  if (n.kind() != NodeKind::Elementwise) return operands.empty() ? "" : operands[0];
  const auto& p = std::get<ElementwisePayload>(n.payload);
  std::vector<std::string> args;
  for (const ScalarOperand& o : p.operands) args.push_back(o.isImmediate() ? floatLiteral(o.value) : operands[static_cast<size_t>(o.input)]);
  if (auto r = reciprocalOfDivisor(p)) return elementwiseExpr(ElementwiseOp::Mul, {args[0], floatLiteral(*r)});
  if (dividesByInvariantReciprocal(p, invariantDivisor)) return renderPattern("($0 * (1.0f / $1))", args);
  if (expOfNonPositive(n, c.nonPositive)) return renderPattern(kExpOfNonPositive.pattern, args);
  return elementwiseExpr(p.op, args);
}

void emitElementwise(CodeWriter& w, const EmitContext& c, const Node& n, const LoopNest& nest, const Operands& ops) {
  std::vector<std::string> loads;
  int deviceAccesses = !nest.output.staged && isDevice(c, nest.output.slice) ? 1 : 0;
  for (size_t k = 0; k < nest.inputs.size(); ++k) {
    loads.push_back(ops.in[k] + "[" + indexExpr(nest.inputs[k].strides) + "]");
    deviceAccesses += !nest.inputs[k].staged && isDevice(c, nest.inputs[k].slice) ? 1 : 0;
  }
  std::string value = mapValue(c, n, loads);
  emitLoops(w, nest.extents, 0, nest.extents.size(), "omp simd", 1, [&] {
    w.line(ops.out + "[" + indexExpr(nest.output.strides) + "] = " + value + ";");
    count(w, c, deviceAccesses);
  });
}

// Max and min are exact in float. Sums and products accumulate in double lanes, as the interpreter
// does: float lanes lose about eps * sqrt(n) * |x| (a 4096-long column sum missed the check's
// tolerance by 100x near zero). A sum of nonnegative terms cannot cancel and stays in float lanes
// (SumPrecision.h): softmax's sum of exponentials, a mean of squares (docs/cpu.md, "Reductions").
struct ReduceSpelling {
  std::string type, identity, clause, combine;  // combine: the op table's pattern, $0 the accumulator, $1 the value
};

// The op table's identity and combine (core/gir/ScalarOps.h). Max and min combine with std::max /
// std::min, one instruction, and that is the table's fmax / fmin here: the accumulator starts at the
// identity (-INFINITY / INFINITY) and std::max(acc, NaN) keeps acc, so it is never NaN, and fmax
// differs from std::max only when its first operand is (tests/cpu/NanTest.cpp).
ReduceSpelling reduceSpelling(ReduceOp op) {
  std::string identity(reduceIdentityRendering(op)), combine(reduceCombineRendering(op));
  switch (op) {
    case ReduceOp::Sum: return {"double", identity, "+", combine};
    case ReduceOp::Prod: return {"double", identity, "*", combine};
    case ReduceOp::Max: return {"float", identity, "max", "std::max($0, $1)"};
    case ReduceOp::Min: return {"float", identity, "min", "std::min($0, $1)"};
  }
  GIR_UNREACHABLE("unknown reduce op");
}

ReduceSpelling reduceSpelling(const Graph& g, NodeId id) {
  if (sumOfNonNegatives(g, id)) {
    ReduceSpelling r = reduceSpelling(ReduceOp::Sum);
    r.type = "float";
    r.identity = "0.0f";
    return r;
  }
  return reduceSpelling(std::get<ReducePayload>(g.node(id).payload).op);
}

std::string combine(const ReduceSpelling& r, const std::string& acc, const std::string& v) {
  return renderPattern(r.combine, {acc, v});
}

// Row blocks (docs/cpu.md, "Reductions"): a double sum over an outer loop, with the innermost loop kept,
// adds kRowBlock consecutive rows in float before each double add, as a row sum's lane blocks do. A
// float partial of 4 terms carries a few ulps of 4|x|; the loop does a quarter of the conversions and
// double adds, which were most of a column sum's time (ReduceSum 4096x4096 over columns: 2,655 ->
// 2,026 us with the unit's copy kept). The loop blocked: the innermost reduced one, or -1 for none.
constexpr int64_t kRowBlock = 4;  // emitRowBlocks spells the four rows' pairwise sum

int64_t rowBlockedLoop(const ReduceSpelling& r, const LoopNest& nest) {
  size_t loops = nest.extents.size();
  if (r.type != "double" || r.clause != "+" || loops < 2 || nest.reduced[loops - 1]) return -1;
  for (size_t d = loops - 1; d-- > 0;)
    if (nest.reduced[d]) return nest.extents[d] % kRowBlock == 0 ? static_cast<int64_t>(d) : -1;
  return -1;
}

void emitRowBlocks(CodeWriter& w, const EmitContext& c, const LoopNest& nest, size_t blocked, const std::string& in,
                   const std::string& accAt, int inDev) {
  std::string at = indexExpr(nest.inputs[0].strides), i = "i" + std::to_string(blocked);
  auto row = [&](int64_t k) {
    return in + "[" + at + (k == 0 ? "" : " + " + intLiteral(k * nest.inputs[0].strides[blocked])) + "]";
  };
  emitLoops(w, nest.extents, 0, blocked, "", 1, [&] {
    w.open("for (int64_t " + i + " = 0; " + i + " < " + intLiteral(nest.extents[blocked]) + "; " + i + " += " +
           intLiteral(kRowBlock) + ")");
    emitLoops(w, nest.extents, blocked + 1, nest.extents.size(), "omp simd", 1, [&] {
      w.line(accAt + " = " + accAt + " + ((" + row(0) + " + " + row(1) + ") + (" + row(2) + " + " + row(3) + "));");
      count(w, c, static_cast<int>(kRowBlock) * inDev);
    });
    w.close();
  });
}

void emitReduce(CodeWriter& w, const EmitContext& c, NodeId id, const LoopNest& nest, const Operands& ops) {
  ReduceSpelling r = reduceSpelling(c.g, id);
  int inDev = !nest.inputs[0].staged && isDevice(c, nest.inputs[0].slice) ? 1 : 0;
  int outDev = !nest.output.staged && isDevice(c, nest.output.slice) ? 1 : 0;
  std::string load = ops.in[0] + "[" + indexExpr(nest.inputs[0].strides) + "]";
  std::string store = ops.out + "[" + indexExpr(nest.output.strides) + "]";
  size_t loops = nest.extents.size(), kept = 0;
  while (kept < loops && !nest.reduced[kept]) ++kept;
  if (nest.reductionIsInnermost()) {
    // One scalar accumulator per output element; the reduced loops are a simd reduction.
    emitLoops(w, nest.extents, 0, kept, kept == loops ? "omp simd" : "", 1, [&] {
      w.line(r.type + " acc = " + r.identity + ";");
      emitLoops(w, nest.extents, kept, loops, "omp simd reduction(" + r.clause + ":acc)", loops - kept, [&] {
        w.line("acc = " + combine(r, "acc", load) + ";");
        count(w, c, inDev);
      });
      w.line(store + (r.type == "float" ? " = acc;" : " = static_cast<float>(acc);"));
      count(w, c, outDev);
    });
    return;
  }
  // Reduced loops outside kept ones: accumulate into a dense array, then store each element once.
  std::vector<int64_t> keptExt;
  for (size_t d = 0; d < loops; ++d)
    if (!nest.reduced[d]) keptExt.push_back(nest.extents[d]);
  std::vector<int64_t> accStrides, dense = denseStrides(keptExt);
  for (size_t d = 0, k = 0; d < loops; ++d) accStrides.push_back(nest.reduced[d] ? 0 : dense[k++]);
  declareTemp(w, "acc", nest.outputElements, r.type);
  w.line("std::fill(acc, acc + " + intLiteral(nest.outputElements) + ", " + r.identity + ");");
  std::string accAt = "acc[" + indexExpr(accStrides) + "]";
  if (int64_t blocked = rowBlockedLoop(r, nest); blocked >= 0) {
    emitRowBlocks(w, c, nest, static_cast<size_t>(blocked), ops.in[0], accAt, inDev);
  } else {
    emitLoops(w, nest.extents, 0, loops, nest.reduced[loops - 1] ? "" : "omp simd", 1, [&] {
      w.line(accAt + " = " + combine(r, accAt, load) + ";");
      count(w, c, inDev);
    });
  }
  std::vector<int64_t> outStrides;
  for (size_t d = 0; d < loops; ++d)
    if (!nest.reduced[d]) outStrides.push_back(nest.output.strides[d]);
  emitLoops(w, keptExt, 0, keptExt.size(), "omp simd", 1, [&] {
    w.line(ops.out + "[" + indexExpr(outStrides) + "] = static_cast<float>(acc[" + indexExpr(dense) + "]);");
    count(w, c, outDev);
  });
}

// Whether the member writes a phase-only array (its writes go into the phases, PhaseSplit.h).
bool writesPhases(const EmitContext& c, const LoopNest& nest, const StageBuffers& buffers) {
  return buffers.phaseOnly[c.g.slice(nest.output.slice).buffer.value];
}

// How a copy of a fused body is spelled (docs/cpu.md, "Paired iterations"): the second copy of a paired
// body names its values and innermost index with the suffix `_1`; only one copy of a group's body in the
// source carries the nodes' comments.
struct BodyCopy {
  std::string suffix;
  bool comments = true;
};

// The value an operand of a fused node reads: a forwarded local, or a load through its pointer (into
// the buffer's phase at half the strides for a phase-split read).
std::string fusedOperand(const EmitContext& c, const LoopGroup& grp, size_t k, size_t input, const StageBuffers& buffers, int& deviceLoads,
                         const BodyCopy& copy) {
  const NestOperand& op = grp.nests[k].inputs[input];
  int from = forwardedFrom(c.g, grp, k, input);
  if (from >= 0 && !isDevice(c, op.slice)) return "v" + std::to_string(grp.nodes[static_cast<size_t>(from)].value) + copy.suffix;
  deviceLoads += isDevice(c, op.slice) ? 1 : 0;
  std::string index = indexExpr(readsPhases(c, grp, k, input, buffers.unitArrays) ? phaseStrides(op.strides) : op.strides, copy.suffix);
  return "in" + std::to_string(grp.nodes[k].value) + "_" + std::to_string(input) + "[" + index + "]";
}

bool streams(const EmitContext& c, const LoopGroup& grp, size_t k) { return streamsOutput(c.g, c.streamed, grp, k); }

// How a fused body names a reduce's accumulator: `acc5` in a scalar loop, `part5[lane2]` in a lane block.
struct AccSpelling {
  std::string prefix = "acc", index;
  std::string of(const std::string& node) const { return prefix + node + index; }
};

// One node's statements inside the fused loop body; returns the device accesses per iteration.
int emitFusedBody(CodeWriter& w, const EmitContext& c, const LoopGroup& grp, size_t k, const StageBuffers& buffers,
                  const ErfPlusOne& erfs, const std::vector<bool>& invariant, const AccSpelling& acc, const BodyCopy& copy) {
  NodeId id = grp.nodes[k];
  const Node& n = c.g.node(id);
  const LoopNest& nest = grp.nests[k];
  std::string me = std::to_string(id.value);
  if (erfs.addOf[k] >= 0) {
    if (copy.comments)
      w.line("// node " + me + ": " + describeNode(c.g, id) + " (with node " + std::to_string(grp.nodes[static_cast<size_t>(erfs.addOf[k])].value) +
             ", as 1 + erf)");
    return 0;
  }
  if (copy.comments) w.line("// node " + me + ": " + describeNode(c.g, id));
  int device = 0;
  std::vector<std::string> operands;
  if (int erf = erfs.erfOf[k]; erf >= 0) operands.push_back(fusedOperand(c, grp, static_cast<size_t>(erf), 0, buffers, device, copy));
  else
    for (size_t i = 0; i < nest.inputs.size(); ++i) operands.push_back(fusedOperand(c, grp, k, i, buffers, device, copy));
  if (n.kind() == NodeKind::Reduce) {
    w.line(acc.of(me) + " = " + combine(reduceSpelling(c.g, id), acc.of(me), operands[0]) + ";");
    return device;
  }
  std::string value = erfs.erfOf[k] >= 0 ? renderPattern(kOnePlusErf.pattern, {operands[0]}) : mapValue(c, n, operands, invariantDivisor(c.g, grp, invariant, k));
  std::string v = "v" + me + copy.suffix;
  w.line("const float " + v + " = " + value + ";");
  if (buffers.values[c.g.slice(nest.output.slice).buffer.value]) return device;
  if (streams(c, grp, k)) w.line("nt" + me + "[lane" + std::to_string(grp.extents.size() - 1) + "] = " + v + ";");
  else w.line("out" + me + "[" + indexExpr(writesPhases(c, nest, buffers) ? phaseStrides(nest.output.strides) : nest.output.strides, copy.suffix) +
              "] = " + v + ";");
  return device + (isDevice(c, nest.output.slice) ? 1 : 0);
}

std::string nodeList(const LoopGroup& grp) {
  std::string out;
  for (NodeId id : grp.nodes) out += (out.empty() ? "" : ", ") + std::to_string(id.value);
  return out;
}

std::string groupHeading(const LoopGroup& grp) {
  size_t loops = grp.extents.size(), kept = 0;
  while (kept < loops && !grp.reduced[kept]) ++kept;
  std::string space;
  for (int64_t e : grp.extents) space += (space.empty() ? "" : ",") + std::to_string(e);
  std::string reduced = kept + 1 == loops ? ", the innermost loop reduced" : kept < loops ? ", the innermost " + std::to_string(loops - kept) + " loops reduced" : "";
  return "// one loop nest over [" + space + "]" + (grp.nodes.size() > 1 ? " for nodes " + nodeList(grp) : "") + reduced;
}

// The group's base pointers (they do not depend on the loop indices).
void declarePointers(CodeWriter& w, const EmitContext& c, const LoopGroup& grp, const StageBuffers& buffers) {
  for (size_t k = 0; k < grp.nodes.size(); ++k) {
    const LoopNest& nest = grp.nests[k];
    std::string me = std::to_string(grp.nodes[k].value);
    for (size_t i = 0; i < nest.inputs.size(); ++i) {
      if (forwardedFrom(c.g, grp, k, i) >= 0 && !isDevice(c, nest.inputs[i].slice)) continue;
      SliceId s = nest.inputs[i].slice;
      bool phases = readsPhases(c, grp, k, i, buffers.unitArrays);
      w.line("const float* const in" + me + "_" + std::to_string(i) + " = " + (phases ? phaseBase(c, s) : sliceBase(c, s)) + ";  // " +
             sliceComment(c, s) + (phases ? ", through its phase" : ""));
    }
    if (phaseRowsOf(c, grp, buffers) != PhaseWrite::None) continue;  // emitPhaseRows spells its rows' starts
    bool phases = writesPhases(c, nest, buffers);
    if (!buffers.values[c.g.slice(nest.output.slice).buffer.value])
      w.line("float* const out" + me + " = " + (phases ? phaseBase(c, nest.output.slice) : sliceBase(c, nest.output.slice)) + ";  // " +
             sliceComment(c, nest.output.slice) + (phases ? ", through its phase" : ""));
  }
}

// Prefetching the next unit (docs/cpu.md, "Prefetching the next unit"): a device input read at `c*u +
// ...` is read at the same elements plus c by unit u + 1, so while this unit computes its lines can be
// on their way into L2 (prefetcht1; prefetched into L1, they held the miss buffers that the unit's own
// loads needed). A short cell (a softmax row of 128 or 256) is prefetched whole at its band's outer
// iteration; a longer one (a LayerNorm row) line by line as an innermost loop goes (RowPrefetch says
// which), so the requests spread over the unit instead of coming in a burst.
constexpr int64_t kPrefetchCellLimit = 256;  // floats

// One device operand of a group whose next unit's elements are worth prefetching.
struct NextUnitRead {
  SliceId slice;
  int64_t coeff = 0;    // unit u + 1 reads the same elements plus coeff
  std::string pointer;  // "in<node>_<input> + <coeff>": its elements for unit u + 1
  std::vector<int64_t> strides;
  int64_t cell = 0;  // elements of one iteration of the loops outside `depth`
};

std::vector<NextUnitRead> nextUnitReads(const EmitContext& c, const LoopGroup& grp, size_t depth) {
  std::vector<NextUnitRead> reads;
  std::vector<std::pair<SliceId, std::vector<int64_t>>> done;
  for (size_t k = 0; k < grp.nodes.size(); ++k)
    for (size_t i = 0; i < grp.nests[k].inputs.size(); ++i) {
      const NestOperand& op = grp.nests[k].inputs[i];
      const MemorySlice& sl = c.g.slice(op.slice);
      if (!isDevice(c, op.slice) || op.staged || forwardedFrom(c.g, grp, k, i) >= 0 || sl.offset.terms().size() != 1) continue;
      const UnitTerm& t = sl.offset.terms()[0];
      if (t.kind != UnitTermKind::Identity || t.coeff <= 0) continue;
      int64_t cell = 1;
      for (size_t d = depth; d < op.strides.size(); ++d) cell += op.strides[d] < 0 ? kPrefetchCellLimit : (grp.extents[d] - 1) * op.strides[d];
      std::vector<int64_t> outer(op.strides.begin(), op.strides.begin() + static_cast<long>(depth));
      if (std::any_of(done.begin(), done.end(), [&](const auto& p) { return c.g.slice(p.first).samePattern(sl) && p.second == outer; })) continue;
      done.push_back({op.slice, outer});
      reads.push_back({op.slice, t.coeff, "in" + std::to_string(grp.nodes[k].value) + "_" + std::to_string(i) + " + " + intLiteral(t.coeff), op.strides, cell});
    }
  return reads;
}

// At a band's outer iteration: the short cells of the next unit, whole.
void emitNextUnitPrefetch(CodeWriter& w, const EmitContext& c, const std::vector<const LoopGroup*>& band, size_t depth) {
  std::vector<NextUnitRead> done;
  for (const LoopGroup* grp : band)
    for (const NextUnitRead& r : nextUnitReads(c, *grp, depth)) {
      std::vector<int64_t> outer(r.strides.begin(), r.strides.begin() + static_cast<long>(depth));
      auto same = [&](const NextUnitRead& d) {
        return c.g.slice(d.slice).samePattern(c.g.slice(r.slice)) && std::equal(outer.begin(), outer.end(), d.strides.begin());
      };
      if (r.cell > kPrefetchCellLimit || std::any_of(done.begin(), done.end(), same)) continue;
      done.push_back(r);
      std::string row = indexExpr(outer);
      w.line("for (int64_t line = 0; line < " + intLiteral(r.cell) + "; line += 16) __builtin_prefetch(" + r.pointer +
             (row == "0" ? "" : " + " + row) + " + line, 0, 2);  // this cell of the next unit, into L2");
    }
}

}  // namespace

std::vector<NextUnitRow> longNextUnitRows(const EmitContext& c, const LoopGroup& grp, size_t depth) {
  std::vector<NextUnitRow> rows;
  for (const NextUnitRead& r : nextUnitReads(c, grp, depth))
    if (r.cell > kPrefetchCellLimit && r.strides.back() == 1) rows.push_back({r.slice, r.coeff, r.strides});
  return rows;
}

namespace {

// Inside a group's innermost loop, at an iteration over `elements` elements from `index` on: the same
// elements of the next unit's rows.
void emitSpreadPrefetch(CodeWriter& w, const EmitContext& c, const std::vector<NextUnitRow>& rows, const std::string& index,
                        const std::string& elements) {
  for (const NextUnitRow& r : rows) {
    std::vector<int64_t> rowStart = r.strides;
    rowStart.back() = 0;
    std::string row = indexExpr(rowStart);
    std::string at = sliceBase(c, r.slice) + " + " + intLiteral(r.coeff * r.unitsAhead) + (row == "0" ? "" : " + " + row) + " + " + index;
    std::string whose = r.unitsAhead == 1 ? "the next unit's" : "unit u + " + std::to_string(r.unitsAhead) + "'s";
    if (elements == "16") w.line("__builtin_prefetch(" + at + ", 0, 2);  // " + whose + " line, into L2");
    else w.line("for (int64_t line = 0; line < " + elements + "; line += 16) __builtin_prefetch(" + at + " + line, 0, 2);  // " + whose + " lines, into L2");
  }
}

// Sums over one innermost loop go in lane blocks: 16 float lanes take 4 steps (64 elements), and each
// block's lanes are then added into the accumulator's lanes. A float partial of 4 terms loses almost
// nothing, and the loop does a quarter of the float-to-double conversions of double lanes and runs as
// fast as float lanes (docs/cpu.md, "Reductions"). Loops of 128 or more take two such partials side
// by side, added to each other before they go into the accumulator: half the conversions again, two
// independent chains, and 5 float adds per term's path instead of 4.
constexpr int64_t kSumLanes = 16, kSumSteps = 4, kSumBlock = kSumLanes * kSumSteps;

int64_t sumPartials(const LoopGroup& grp) { return grp.extents.back() >= 2 * kSumBlock ? 2 : 1; }

// The elements one lane block covers (all partials).
int64_t laneBlockElements(const LoopGroup& grp) { return kSumBlock * sumPartials(grp); }

// Where the machine reads two streams per thread faster than one (`row_sum_segments`), a long sum's two
// partials read the two halves of its row side by side, not neighbouring lines (docs/cpu.md, "Two
// segments"). Row sums of 4096x4096 on 2 threads of a Zen 3 host ran 7-19 % faster that way, as fast
// as four rows side by side; segments of 512 floats ran slower than one stream. So each half is at least 4 KB.
constexpr int64_t kSegmentMinElements = 1024;

// The elements the lane blocks cover (whole blocks), and whether they go as two segments.
int64_t laneBlocksWhole(const LoopGroup& grp) { return grp.extents.back() / laneBlockElements(grp) * laneBlockElements(grp); }
bool segmentsFit(const LoopGroup& grp) { return sumPartials(grp) == 2 && laneBlocksWhole(grp) / 2 >= kSegmentMinElements; }

bool sumsInLaneBlocks(const EmitContext& c, const LoopGroup& grp, const std::vector<size_t>& reduces, size_t kept) {
  if (kept + 1 != grp.extents.size() || grp.extents.back() < kSumBlock) return false;
  for (size_t k : reduces)
    if (std::get<ReducePayload>(c.g.node(grp.nodes[k]).payload).op != ReduceOp::Sum) return false;
  return true;
}

// The whole blocks of the innermost loop: leaves `lanesN[16]` (the accumulator's type) per reduce.
// Partial p of reduce N is `partN` (p = 0) or `partN_p`, fed by its own copy of the body.
template <typename Body, typename NextRows>
void emitLaneBlocks(CodeWriter& w, const EmitContext& c, const LoopGroup& grp, const std::vector<size_t>& reduces, bool segmented,
                    Body body, NextRows nextRows) {
  std::string d = std::to_string(grp.extents.size() - 1), lanes = std::to_string(kSumLanes);
  int64_t partials = sumPartials(grp), block = laneBlockElements(grp), whole = laneBlocksWhole(grp);
  auto part = [](const std::string& me, int64_t p) { return "part" + me + (p == 0 ? "" : "_" + std::to_string(p)); };
  // Two segments: the blocks walk the first half, partial p reads p halves further on.
  bool segments = segmented && segmentsFit(grp);
  int64_t walked = segments ? whole / 2 : whole, stride = segments ? kSumBlock : block;
  int64_t partialOffset = segments ? whole / 2 : kSumLanes, step = segments ? kSumLanes : kSumLanes * partials;
  for (size_t k : reduces)
    w.line("alignas(64) " + reduceSpelling(c.g, grp.nodes[k]).type + " lanes" + std::to_string(grp.nodes[k].value) + "[" + lanes + "] = {};");
  if (segments) w.line("// the two partials read the row's two halves side by side: two streams (docs/cpu.md, \"Two segments\")");
  w.open("for (int64_t block" + d + " = 0; block" + d + " < " + intLiteral(walked) + "; block" + d + " += " + std::to_string(stride) + ")");
  if (!segments) nextRows("block" + d, std::to_string(block));  // a segmented sum's band prefetches nothing (RowPrefetch)
  for (size_t k : reduces)
    for (int64_t p = 0; p < partials; ++p) w.line("alignas(64) float " + part(std::to_string(grp.nodes[k].value), p) + "[" + lanes + "] = {};");
  w.open("for (int64_t step" + d + " = block" + d + "; step" + d + " < block" + d + " + " + std::to_string(stride) + "; step" + d +
         " += " + std::to_string(step) + ")");
  for (int64_t p = 0; p < partials; ++p) {
    w.line("#pragma omp simd");
    w.open("for (int64_t lane" + d + " = 0; lane" + d + " < " + lanes + "; ++lane" + d + ")");
    w.line("const int64_t i" + d + " = step" + d + (p == 0 ? "" : " + " + intLiteral(p * partialOffset)) + " + lane" + d + ";");
    body(AccSpelling{"part", (p == 0 ? "" : "_" + std::to_string(p)) + "[lane" + d + "]"});
    w.close();
  }
  w.close();
  w.line("#pragma omp simd");
  w.open("for (int64_t lane" + d + " = 0; lane" + d + " < " + lanes + "; ++lane" + d + ")");
  for (size_t k : reduces) {
    std::string me = std::to_string(grp.nodes[k].value), sum;
    for (int64_t p = 0; p < partials; ++p) sum += (p ? " + " : "") + part(me, p) + "[lane" + d + "]";
    w.line("lanes" + me + "[lane" + d + "] += " + (partials > 1 ? "(" + sum + ")" : sum) + ";");
  }
  w.close();
  w.close();
}

// The elements after the whole blocks, then the lanes added pairwise (girLaneSum) into the accumulator `accN`.
template <typename Body>
void emitLaneTail(CodeWriter& w, const LoopGroup& grp, const std::vector<size_t>& reduces, const std::string& pragma,
                  Body body) {
  int64_t n = grp.extents.back(), whole = laneBlocksWhole(grp);
  std::string i = "i" + std::to_string(grp.extents.size() - 1);
  if (whole < n) {
    w.line("#pragma " + pragma);
    w.open("for (int64_t " + i + " = " + intLiteral(whole) + "; " + i + " < " + intLiteral(n) + "; ++" + i + ")");
    body(AccSpelling{});
    w.close();
  }
  for (size_t k : reduces) {
    std::string me = std::to_string(grp.nodes[k].value);
    w.line("acc" + me + " += girLaneSum(lanes" + me + ");");
  }
}

// A Deinterleave or Fill writer of a phase-only array (PhaseSplit.h), its loops from `from` inward, row
// by row: element j of a row that starts at element `at` of the array goes to element at + j, so the even
// j go to the phase of `at` from at / 2 on, the odd j to the phase of at + 1 from (at + 1) / 2 on; the
// outer strides are even and halve.
void emitPhaseRows(CodeWriter& w, const EmitContext& c, const LoopGroup& grp, PhaseWrite how, size_t from) {
  const LoopNest& nest = grp.nests[0];
  std::string me = std::to_string(grp.nodes[0].value);
  BufferId b = c.g.slice(nest.output.slice).buffer;
  int64_t at = instanceOffset(c, nest.output.slice).offset.constant(), run = grp.extents.back();
  size_t loops = grp.extents.size();
  // A band keeps at least kBandMinInnerIterations inside (LoopBands.h), so the row loop is this group's.
  GIR_ASSERT(from < loops, "a band shares the row loop of a phase writer");
  std::vector<int64_t> rowStart = phaseStrides(nest.output.strides);
  rowStart.back() = 0;
  auto plus = [](const std::string& e) { return e == "0" ? std::string() : " + " + e; };
  std::string first = phaseElement(c, b, at) + plus(indexExpr(rowStart)), second = phaseElement(c, b, at + 1) + plus(indexExpr(rowStart));
  w.line("// node " + me + ": " + describeNode(c.g, grp.nodes[0]) + ", into %" + c.g.buffer(b).name +
         "'s even and odd elements (docs/cpu.md, \"Stride-2 reads\")");
  if (how == PhaseWrite::Deinterleave) {
    const NestOperand& in = nest.inputs[0];  // its pointer, in<me>_0, is declarePointers'
    std::vector<int64_t> inRow = in.strides;
    inRow.back() = 0;
    emitLoops(w, grp.extents, from, loops - 1, "", 0, [&] {
      w.line("girDeinterleave(in" + me + "_0" + plus(indexExpr(inRow)) + ", " + first + ", " + second + ", " + intLiteral(run) + ");");
      count(w, c, isDevice(c, in.slice) ? static_cast<int>(run) : 0);
    });
    return;
  }
  const auto& fill = std::get<ElementwisePayload>(c.g.node(grp.nodes[0]).payload);
  std::string value = floatLiteral(fill.operands[0].value), i = "i" + std::to_string(loops - 1);
  emitLoops(w, grp.extents, from, loops - 1, "", 0, [&] {
    for (auto [to, n] : {std::pair{first, (run + 1) / 2}, std::pair{second, run / 2}}) {
      if (n == 0) continue;
      w.line("#pragma omp simd");
      w.line("for (int64_t " + i + " = 0; " + i + " < " + intLiteral(n) + "; ++" + i + ") (" + to + ")[" + i + "] = " + value + ";");
    }
  });
}

// Paired iterations (docs/cpu.md, "Paired iterations"): a fused elementwise body that calls a
// transcendental is a long chain of dependent vector operations, and a short row (depthwise + SiLU's 56
// outputs, 7 vectors) leaves the out-of-order core few independent chains in reach. Its innermost loop
// goes two vectors (2 x girLanes elements) at a time, the body written twice, statement by statement,
// so that two chains advance side by side; the elements after the last pair run the plain loop. Rows
// shorter than two 512-bit vectors are left alone.
constexpr int64_t kPairedMinElements = 32;

bool pairsIterations(const EmitContext& c, const LoopGroup& grp, size_t from) {
  if (from >= grp.extents.size() || grp.extents.back() < kPairedMinElements || grp.nodes.size() < 2) return false;
  for (NodeId id : grp.nodes)
    if (callsTranscendental(c.g.node(id))) return true;
  return false;
}

// The loops of a paired group from `from` inward; body(true) writes both copies, body(false) one.
template <typename Body, typename NextRows>
void emitPairedLoops(CodeWriter& w, const LoopGroup& grp, size_t from, Body body, NextRows nextRows) {
  size_t loops = grp.extents.size();
  std::string d = std::to_string(loops - 1), i = "i" + d, n = intLiteral(grp.extents.back());
  emitLoops(w, grp.extents, from, loops - 1, "", 0, [&] {
    w.line("// iterations paired: two vectors of the body side by side (docs/cpu.md, \"Paired iterations\")");
    w.open("for (int64_t pair" + d + " = 0; pair" + d + " + 2 * girLanes <= " + n + "; pair" + d + " += 2 * girLanes)");
    nextRows("pair" + d, "2 * girLanes");
    w.line("#pragma omp simd");
    w.open("for (int64_t lane" + d + " = 0; lane" + d + " < girLanes; ++lane" + d + ")");
    w.line("const int64_t " + i + " = pair" + d + " + lane" + d + ", " + i + "_1 = " + i + " + girLanes;");
    body(true);
    w.close();
    w.close();
    w.line("// the elements after the last pair: the same body, once");
    w.line("#pragma omp simd");
    w.open("for (int64_t " + i + " = " + n + " / (2 * girLanes) * (2 * girLanes); " + i + " < " + n + "; ++" + i + ")");
    body(false);
    w.close();
  });
}

// The positions of the group's reduces among its nodes.
std::vector<size_t> reduceIndices(const EmitContext& c, const LoopGroup& grp) {
  std::vector<size_t> reduces;
  for (size_t k = 0; k < grp.nodes.size(); ++k)
    if (c.g.node(grp.nodes[k]).kind() == NodeKind::Reduce) reduces.push_back(k);
  return reduces;
}

// How a group's loops go, from `from` inward: a phase writer's rows; sums in lane blocks or a reduced
// `omp simd` loop; an elementwise body in paired iterations, one `omp simd` loop, or 64-byte lines of
// streamed outputs. emitGroupLoops spells it; stepsByLines asks it before (where to prefetch from).
enum class LoopShape { PhaseRows, LaneBlocks, ReducedLoop, Paired, Elementwise, Lines };

LoopShape loopShapeOf(const EmitContext& c, const LoopGroup& grp, size_t from, const StageBuffers& buffers) {
  if (phaseRowsOf(c, grp, buffers) != PhaseWrite::None) return LoopShape::PhaseRows;
  size_t loops = grp.extents.size(), kept = 0;
  while (kept < loops && !grp.reduced[kept]) ++kept;
  if (std::vector<size_t> reduces = reduceIndices(c, grp); !reduces.empty())
    return sumsInLaneBlocks(c, grp, reduces, kept) ? LoopShape::LaneBlocks : LoopShape::ReducedLoop;
  bool streamed = false;
  for (size_t k = 0; k < grp.nodes.size(); ++k) streamed = streamed || streams(c, grp, k);
  if (!streamed) return pairsIterations(c, grp, from) ? LoopShape::Paired : LoopShape::Elementwise;
  return from + 1 > loops ? LoopShape::Elementwise : LoopShape::Lines;
}

// The group's loops from `from` inward (the outer ones, if any, are its band's), with its body.
void emitGroupLoops(CodeWriter& w, const EmitContext& c, const LoopGroup& grp, size_t from, const StageBuffers& buffers,
                    const std::vector<NextUnitRow>& prefetchRows, bool segmentedSums) {
  LoopShape shape = loopShapeOf(c, grp, from, buffers);
  if (shape == LoopShape::PhaseRows) return emitPhaseRows(w, c, grp, phaseRowsOf(c, grp, buffers), from);
  size_t loops = grp.extents.size(), kept = 0;
  while (kept < loops && !grp.reduced[kept]) ++kept;
  std::vector<size_t> reduces = reduceIndices(c, grp);
  ErfPlusOne erfs = erfPlusOne(c.g, grp, buffers.values);
  std::vector<bool> invariant = innermostInvariant(c.g, grp);
  // The next unit's rows this loop prefetches as it goes (docs/cpu.md, "Prefetching the next unit").
  auto nextRows = [&](const std::string& index, const std::string& elements) { emitSpreadPrefetch(w, c, prefetchRows, index, elements); };
  // The group's body, each node's statements once per copy (two side by side in a paired loop).
  auto body = [&](const AccSpelling& acc = {}, std::initializer_list<BodyCopy> copies = {BodyCopy{}}) {
    int device = 0;
    for (size_t k = 0; k < grp.nodes.size(); ++k)
      for (const BodyCopy& copy : copies) device += emitFusedBody(w, c, grp, k, buffers, erfs, invariant, acc, copy);
    count(w, c, device);
  };
  if (reduces.empty()) {
    if (shape == LoopShape::Paired) {
      emitPairedLoops(w, grp, from, [&](bool paired) {
        if (paired) body({}, {BodyCopy{}, BodyCopy{"_1", false}});
        else body({}, {BodyCopy{"", false}});  // the tail: its comments are the pair's
      }, nextRows);
      return;
    }
    if (shape == LoopShape::Elementwise) {
      emitLoops(w, grp.extents, from, loops, "omp simd", 1, [&] { body(); });
      return;
    }
    std::vector<size_t> streamed;
    for (size_t k = 0; k < grp.nodes.size(); ++k)
      if (streams(c, grp, k)) streamed.push_back(k);
    // The innermost loop goes by 64-byte lines (streamsOutput keeps rows whole lines): each streamed
    // output's line is computed into `ntN[16]`, which GCC keeps in registers, and leaves with streaming
    // stores. An L1 row buffer copied out after the loop cost a load and a store per element: Softmax
    // 32x16x256x256 ran 10-15 % slower that way (docs/cpu.md, "Streaming stores").
    std::string d = std::to_string(loops - 1), line = std::to_string(kLineFloats);
    emitLoops(w, grp.extents, from, loops - 1, "", 0, [&] {
      w.open("for (int64_t step" + d + " = 0; step" + d + " < " + intLiteral(grp.extents.back()) + "; step" + d + " += " + line + ")");
      nextRows("step" + d, line);
      for (size_t k : streamed) w.line("alignas(64) float nt" + std::to_string(grp.nodes[k].value) + "[" + line + "];");
      w.line("#pragma omp simd");
      w.open("for (int64_t lane" + d + " = 0; lane" + d + " < " + line + "; ++lane" + d + ")");
      w.line("const int64_t i" + d + " = step" + d + " + lane" + d + ";");
      body();
      w.close();
      for (size_t k : streamed) {
        std::vector<int64_t> rowStart = grp.nests[k].output.strides;
        rowStart.back() = 0;
        std::string me = std::to_string(grp.nodes[k].value), start = indexExpr(rowStart);
        w.line("girStreamLine(out" + me + (start == "0" ? "" : " + " + start) + " + step" + d + ", nt" + me + ");  // streaming stores");
      }
      w.close();
    });
    return;
  }
  std::string pragma = "omp simd";
  for (size_t k : reduces) pragma += " reduction(" + reduceSpelling(c.g, grp.nodes[k]).clause + ":acc" + std::to_string(grp.nodes[k].value) + ")";
  bool blocked = shape == LoopShape::LaneBlocks;
  emitLoops(w, grp.extents, from, kept, "", 0, [&] {
    if (blocked) emitLaneBlocks(w, c, grp, reduces, segmentedSums, body, nextRows);
    for (size_t k : reduces) {
      ReduceSpelling r = reduceSpelling(c.g, grp.nodes[k]);
      w.line(r.type + " acc" + std::to_string(grp.nodes[k].value) + " = " + r.identity + ";");
    }
    if (!blocked) emitLoops(w, grp.extents, kept, loops, pragma, loops - kept, [&] { body(); });
    else emitLaneTail(w, grp, reduces, pragma, body);
    for (size_t k : reduces) {
      std::string me = std::to_string(grp.nodes[k].value);
      std::string acc = "acc" + me;
      w.line("out" + me + "[" + indexExpr(grp.nests[k].output.strides) + "] = " +
             (reduceSpelling(c.g, grp.nodes[k]).type == "float" ? acc : "static_cast<float>(" + acc + ")") + ";");
      count(w, c, isDevice(c, grp.nests[k].output.slice) ? 1 : 0);
    }
  });
}

// Rows in a pipeline (docs/cpu.md, "Row pipelines"): a band over one shared loop whose rows are short
// runs its k-th loop nest on row `pipe0 - k`, so one iteration's nests work on different rows and
// depend on nothing of one another. A row's passes are a chain (softmax's max, then exp and sum, then
// the divide), and each pass ends in a horizontal reduction and a division that the next must wait for;
// row after row those waits cost Softmax 32x16x256x256 up to a tenth of its time on AVX2. Legal for every band:
// members share data only within one row's cell (bandPartitions), and row r's k-th nest still runs
// after every earlier nest of rows up to r. Short rows only: the rows in flight stay in L1.
constexpr int64_t kPipelinedRowFloats = 512;
constexpr int64_t kPipelinedMinRows = 4;

bool pipelinesRows(const EmitContext& c, const std::vector<const LoopGroup*>& band, size_t depth, const StageBuffers& buffers) {
  if (depth != 1 || band.size() < 2 || band.front()->extents[0] < kPipelinedMinRows) return false;
  return std::all_of(band.begin(), band.end(), [&](const LoopGroup* grp) {
    int64_t row = 1;
    for (size_t d = 1; d < grp->extents.size(); ++d) row *= grp->extents[d];
    return row <= kPipelinedRowFloats && loopShapeOf(c, *grp, depth, buffers) != LoopShape::PhaseRows;
  });
}

void emitRowPipeline(CodeWriter& w, const EmitContext& c, const std::vector<const LoopGroup*>& band, const StageBuffers& buffers,
                     const std::function<std::vector<NextUnitRow>(const LoopGroup*)>& prefetchRowsOf) {
  int64_t rows = band.front()->extents[0], stages = static_cast<int64_t>(band.size());
  w.line("// rows in a pipeline: loop nest k works on row pipe0 - k (docs/cpu.md, \"Row pipelines\")");
  w.open("for (int64_t pipe0 = 0; pipe0 < " + intLiteral(rows + stages - 1) + "; ++pipe0)");
  for (int64_t k = 0; k < stages; ++k) {
    const LoopGroup* grp = band[static_cast<size_t>(k)];
    std::string lag = std::to_string(k);
    w.line(groupHeading(*grp));
    w.open(k == 0 ? "if (pipe0 < " + intLiteral(rows) + ")" : "if (pipe0 >= " + lag + " && pipe0 < " + intLiteral(rows + k) + ")");
    w.line(k == 0 ? "const int64_t i0 = pipe0;" : "const int64_t i0 = pipe0 - " + lag + ";");
    if (k == 0) emitNextUnitPrefetch(w, c, band, 1);
    // A band of several nests never reads its sums in segments (assignRowPrefetch: one loop nest only).
    emitGroupLoops(w, c, *grp, 1, buffers, prefetchRowsOf(grp), false);
    w.close();
  }
  w.close();
}

}  // namespace

bool stepsByLines(const EmitContext& c, const LoopGroup& grp, size_t from, const StageBuffers& buffers) {
  LoopShape shape = loopShapeOf(c, grp, from, buffers);
  return shape == LoopShape::LaneBlocks || shape == LoopShape::Paired || shape == LoopShape::Lines;
}

void emitLoopBand(CodeWriter& w, const EmitContext& c, const std::vector<const LoopGroup*>& band, size_t depth,
                  const StageBuffers& buffers, const RowPrefetch& rows) {
  // The rows this band's last group prefetches: the later rows, else its own where more passes follow.
  auto rowsOf = [&](const LoopGroup* grp) {
    if (grp != band.back()) return std::vector<NextUnitRow>{};
    return rows.ownRows ? longNextUnitRows(c, *grp, depth) : rows.laterRows;
  };
  if (depth == 0) {
    w.line(groupHeading(*band.front()));
    w.open("");
    emitPhaseSplits(w, c, *band.front(), buffers);
    declarePointers(w, c, *band.front(), buffers);
    emitGroupLoops(w, c, *band.front(), 0, buffers, rowsOf(band.front()), rows.segmentedSums);
    w.close();
    return;
  }
  std::string shared;
  for (size_t d = 0; d < depth; ++d) shared += (shared.empty() ? "" : ",") + std::to_string(band.front()->extents[d]);
  w.line("// one band: " + std::to_string(band.size()) + " loop nests share their outer loops [" + shared + "]");
  w.open("");
  for (const LoopGroup* grp : band) {
    emitPhaseSplits(w, c, *grp, buffers);
    declarePointers(w, c, *grp, buffers);
  }
  // The rows each member prefetches as it goes: the last one's as above, the others their own long rows.
  auto prefetchRowsOf = [&](const LoopGroup* grp) { return grp == band.back() ? rowsOf(grp) : longNextUnitRows(c, *grp, depth); };
  if (pipelinesRows(c, band, depth, buffers)) {
    emitRowPipeline(w, c, band, buffers, prefetchRowsOf);
    w.close();
    return;
  }
  emitLoops(w, band.front()->extents, 0, depth, "", 0, [&] {
    emitNextUnitPrefetch(w, c, band, depth);
    for (const LoopGroup* grp : band) {
      w.line(groupHeading(*grp));
      emitGroupLoops(w, c, *grp, depth, buffers, prefetchRowsOf(grp), rows.segmentedSums);
    }
  });
  w.close();
}

std::string homePointer(const EmitContext& c, BufferId b, const BufferHome& home) {
  std::string why = home.kind == HomeKind::CopySource ? "the slice node " + std::to_string(home.copy.value) + " copies, which nothing here writes"
                                                      : "the output its last readers write at the same elements";
  return "float* const " + c.names[b.value] + " = " + sliceBase(c, home.slice) + ";  // %" + c.g.buffer(b).name + " lives in " +
         sliceComment(c, home.slice) + ": " + why + " (docs/cpu.md, \"Buffer homes\")";
}

void emitDroppedCopy(CodeWriter& w, const EmitContext& c, NodeId id) {
  const Node& n = c.g.node(id);
  w.line("// node " + std::to_string(id.value) + ": " + describeNode(c.g, id) + " (stores nothing: its output lives in its input)");
  SliceId src = n.inputs[0];
  if (c.instrument && isDevice(c, src)) w.line("GIR_COUNT(" + std::to_string(4 * c.g.slice(src).numel()) + "LL);");
}

Status emitNode(CodeWriter& w, const EmitContext& c, NodeId id, const NestOperand* firstInput) {
  auto nest = loopNestOf(c.g, id);
  if (!nest) return nest.takeError();
  if (firstInput) nest->inputs[0] = *firstInput;
  const Node& n = c.g.node(id);
  w.line("// node " + std::to_string(id.value) + ": " + describeNode(c.g, id));
  w.open("");
  Operands ops;
  for (size_t k = 0; k < nest->inputs.size(); ++k) {
    SliceId s = nest->inputs[k].slice;
    std::string ptr = "in" + std::to_string(k);
    w.line("const float* const " + ptr + " = " + sliceBase(c, s) + ";  // " + sliceComment(c, s));
    ops.in.push_back(ptr);
  }
  w.line("float* const out = " + sliceBase(c, nest->output.slice) + ";  // " + sliceComment(c, nest->output.slice));
  ops.out = "out";
  for (size_t k = 0; k < nest->inputs.size(); ++k) {
    if (!nest->inputs[k].staged) continue;
    std::string t = "t" + std::to_string(k);
    declareTemp(w, t, c.g.slice(nest->inputs[k].slice).numel());
    emitPack(w, c, nest->inputs[k].slice, ops.in[k], t, true);
    ops.in[k] = t;
  }
  if (nest->output.staged) {
    declareTemp(w, "tout", nest->outputElements);
    ops.out = "tout";
  }
  switch (n.kind()) {
    case NodeKind::Move:
    case NodeKind::Elementwise:
    case NodeKind::Broadcast: emitElementwise(w, c, n, *nest, ops); break;
    case NodeKind::Reduce: emitReduce(w, c, id, *nest, ops); break;
    case NodeKind::Sync: GIR_UNREACHABLE("syncs are scheduled, not emitted");
  }
  if (nest->output.staged) emitPack(w, c, nest->output.slice, "out", "tout", false);
  w.close();
  return success();
}

}  // namespace gir::codegen::cpu
