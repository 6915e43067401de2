// The CPU source of a GIR-Graph: one function per kernel (an orphaned `omp for` over blocks whose
// implicit barrier is the device sync), stages inside a block in order, units of a block in turn,
// and the extern "C" entry points the launcher calls.
#include "codegen/cpu/CpuEmitter.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "codegen/cpu/CpuNodeEmitter.h"
#include "codegen/cpu/CpuPrelude.h"
#include "codegen/cpu/EmittedArithmetic.h"
#include "codegen/cpu/PhaseSplit.h"
#include "codegen/cpu/Prefetch.h"
#include "codegen/cpu/StreamingStores.h"
#include "codegen/schedule/BlockOrder.h"
#include "codegen/schedule/GuardDispatch.h"
#include "codegen/schedule/LoopBands.h"
#include "codegen/schedule/UnitCoalescing.h"
#include "core/gir/Printer.h"
#include "core/gir/SymbolicCheck.h"
#include "core/gir/ValueSigns.h"
#include "core/gir/Verifier.h"

namespace gir::codegen::cpu {

namespace {

bool reservedName(const std::string& s) {
  static const std::set<std::string> kReserved = {
      "u", "u0", "u1", "blk", "visit", "line", "g", "acc", "out", "tout", "scratch", "std", "int", "float", "double", "char", "long",
      "short", "bool", "void", "auto", "const", "static", "for", "if", "else", "do", "while", "return", "switch",
      "case", "default", "break", "continue", "new", "delete", "this", "class", "struct", "union", "enum",
      "namespace", "template", "typename", "using", "operator", "true", "false", "signed", "unsigned", "volatile",
      "register", "extern", "inline", "goto", "sizeof", "try", "catch", "throw", "virtual", "friend", "private",
      "public", "protected", "mutable", "explicit", "export", "and", "or", "not", "xor", "NAN", "INFINITY", "main"};
  if (kReserved.count(s) || s.rfind("gir", 0) == 0 || s.rfind("GIR", 0) == 0 || s[0] == '_') return true;
  // in<k>, in<n>_<k>, t<k>, i<k>, v<n>, acc<n>, out<n> are the emitter's operand, temporary,
  // loop, value, accumulator and output names; nt<n>, lanes<n>, part<n>, lane<d>, block<d> and step<d>
  // its streamed rows and lane blocks.
  for (const char* p : {"in", "t", "i", "v", "acc", "out", "nt", "lanes", "part", "lane", "block", "step"}) {
    std::string pre = p;
    if (s.size() > pre.size() && s.rfind(pre, 0) == 0 && std::all_of(s.begin() + static_cast<long>(pre.size()), s.end(), [](char ch) {
          return std::isdigit(static_cast<unsigned char>(ch)) || ch == '_';
        }))
      return true;
  }
  return false;
}

// C identifiers from the GIR buffer names: other characters become '_', clashes get a prefix or suffix.
std::vector<std::string> bufferNames(const Graph& g) {
  std::vector<std::string> names;
  std::set<std::string> taken;
  for (uint32_t b = 0; b < g.buffers().size(); ++b) {
    std::string s;
    for (char ch : g.buffers()[b].name) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) || reservedName(s)) s = "b_" + s;
    if (taken.count(s)) s += "_" + std::to_string(b);
    taken.insert(s);
    names.push_back(s);
  }
  return names;
}

std::string roleText(BufferRole r) { return std::string(roleName(r)); }

std::string bufferComment(const Graph& g, const BufferPlan& p) {
  const Buffer& b = g.buffer(p.buffer);
  std::string shape;
  for (int64_t e : b.shape) shape += (shape.empty() ? "" : ",") + std::to_string(e);
  std::string role = b.role == BufferRole::Temp ? "" : " " + roleText(b.role);
  return "%" + b.name + ": " + b.level + " f32[" + shape + "]" + role + ", " + std::string(placementName(p.placement)) + " (" + p.why + ")";
}

bool touches(const Graph& g, NodeId id, BufferId b) {
  const Node& n = g.node(id);
  for (const auto* list : {&n.inputs, &n.outputs})
    for (SliceId s : *list)
      if (g.slice(s).buffer == b) return true;
  return false;
}

bool kernelTouches(const Graph& g, const KernelSchedule& k, BufferId b) {
  for (const Stage& st : k.stages)
    for (NodeId id : st.nodes)
      if (touches(g, id, b)) return true;
  return false;
}

// Buffers passed in the `g` array: global ones that are used, or are graph inputs or outputs.
bool isArgument(const Graph& g, const BufferPlan& p) {
  const Buffer& b = g.buffer(p.buffer);
  return p.placement == Placement::Global && !b.erased && (p.used || b.role != BufferRole::Temp);
}

bool onStack(const BufferPlan& p) { return p.placement == Placement::PerUnit && p.instanceSize <= kStackArrayLimit; }

UnitDomain domainOf(const EmitContext& c, const LoopGroup& grp) { return c.g.domainOf(c.g.node(grp.nodes[0])); }  // all members share it

bool guarded(const EmitContext& c, const LoopGroup& grp) {
  UnitDomain d = domainOf(c, grp);
  return d.begin > 0 || d.end < c.g.units;
}

// One band of a stage: its groups, all on one unit domain (LoopBands.h).
struct BandRef {
  std::vector<const LoopGroup*> groups;
  size_t depth = 0;
  RowPrefetch rows;  // the next unit's long rows it prefetches
};

// Which band prefetches the next unit's long rows (docs/cpu.md, "Prefetching the next unit"): the
// stage's last looping band, a single loop nest over the same loops as the bands that read them, as it
// goes (LayerNorm's normalization, for the rows its mean read); where that band cannot (it loops
// element by element, or over other loops), the bands that read them, when a looping band follows.
// From the last pass one unit ahead leaves the lines too little time: LayerNorm 8192x1024's rows of 4 KB
// ran 4-8 % slower than with its mean's pass prefetching them, and level with it two units ahead.
constexpr int64_t kLastPassUnitsAhead = 2;
void assignRowPrefetch(const EmitContext& c, std::vector<BandRef>& bands, const StageBuffers& buffers) {
  auto loops = [](const BandRef& b) {
    const std::vector<int64_t>& e = b.groups.front()->extents;
    return std::any_of(e.begin(), e.end(), [](int64_t n) { return n > 1; });
  };
  size_t last = bands.size();
  for (size_t i = bands.size(); i-- > 0;)
    if (loops(bands[i])) {
      last = i;
      break;
    }
  if (last == bands.size()) return;
  // The only looping band, one loop nest: no pass follows to prefetch for, so its sums read in two
  // segments where the machine reads two streams faster than one.
  bands[last].rows.segmentedSums =
      c.rowSumSegments == 2 && bands[last].groups.size() == 1 && std::count_if(bands.begin(), bands.end(), loops) == 1;
  const LoopGroup& site = *bands[last].groups.back();
  bool canTake = bands[last].depth == 0 && stepsByLines(c, site, 0, buffers);
  for (size_t i = 0; i < last; ++i) {
    std::vector<NextUnitRow> rows;
    for (const LoopGroup* grp : bands[i].groups) {
      auto own = longNextUnitRows(c, *grp, bands[i].depth);
      rows.insert(rows.end(), own.begin(), own.end());
    }
    bool taken = canTake && bands[i].depth == 0 && bands[i].groups.front()->extents == site.extents;
    if (!taken) {
      bands[i].rows.ownRows = true;
      continue;
    }
    std::vector<NextUnitRow>& later = bands[last].rows.laterRows;
    for (const NextUnitRow& r : rows) {
      auto same = [&](const NextUnitRow& o) { return o.strides == r.strides && c.g.slice(o.slice).samePattern(c.g.slice(r.slice)); };
      if (std::none_of(later.begin(), later.end(), same)) later.push_back({r.slice, r.coeff, r.strides, kLastPassUnitsAhead});
    }
  }
}

struct StageEmitter {
  CodeWriter& w;
  const EmitContext& c;
  const StageBuffers& buffers;  // values (and copies' sources), and the unit's own arrays
  const std::vector<BufferHome>& homes;
  Status& status;

  void band(const BandRef& b) {
    const LoopGroup& grp = *b.groups.front();
    UnitDomain d = domainOf(c, grp);
    bool guard = guarded(c, grp);
    if (guard) w.open("if (u >= " + std::to_string(d.begin) + " && u < " + std::to_string(d.end) + ")");
    if (b.groups.size() == 1 && std::all_of(grp.nodes.begin(), grp.nodes.end(), [&](NodeId id) { return dropsStores(id); }))
      for (NodeId id : grp.nodes) emitDroppedCopy(w, c, id);
    else if (grp.fused) emitLoopBand(w, c, b.groups, b.depth, buffers, b.rows);
    else if (grp.readsThroughMove && buffers.values[c.g.slice(c.g.node(grp.nodes[0]).outputs[0]).buffer.value]) throughMove(grp);
    else
      for (NodeId id : grp.nodes) {
        if (dropsStores(id)) emitDroppedCopy(w, c, id);
        else keep(emitNode(w, c, id));
      }
    if (guard) w.close();
  }

  bool dropsStores(NodeId id) const {
    const BufferHome& home = homes[c.g.slice(c.g.node(id).outputs[0]).buffer.value];
    return home.kind == HomeKind::CopySource && home.copy == id;
  }

  void keep(const Status& s) {
    if (!s && status) status = s;
  }

  // A lone move and the reduce that reads it: the reduce reads the move's source (FusedLoops.h).
  void throughMove(const LoopGroup& grp) {
    w.line("// node " + std::to_string(grp.nodes[0].value) + ": " + describeNode(c.g, grp.nodes[0]) + " (read through by node " +
           std::to_string(grp.nodes[1].value) + ": a move into registers is a load)");
    keep(emitNode(w, c, grp.nodes[1], &grp.nests[0].inputs[0]));
  }

  // Bands on pairwise disjoint domains, sorted by domain (GuardDispatch.h).
  void dispatch(const std::vector<const BandRef*>& run, size_t lo, size_t hi) {
    if (hi - lo == 1) return band(*run[lo]);
    size_t mid = (lo + hi) / 2;
    w.open("if (u < " + std::to_string(domainOf(c, *run[mid]->groups.front()).begin) + ")");
    dispatch(run, lo, mid);
    w.close();
    w.open("else");
    dispatch(run, mid, hi);
    w.close();
  }
};

void emitStage(CodeWriter& w, const EmitContext& c, const KernelSchedule& k, size_t stage, Status& status) {
  const Stage& st = k.stages[stage];
  std::vector<LoopGroup> groups = fuseStage(c.g, st);
  std::vector<bool> values = valueBuffers(c.g, c.schedule, groups);
  std::vector<LoopBand> loopBands = bandGroups(c.g, groups);
  // A thread-scratch instance keeps its place (emitKernel carves it).
  std::vector<BufferHome> homes = bufferHomes(c.g, c.schedule, groups, loopBands, values, c.streamed, kStackArrayLimit);
  for (size_t b = 0; b < homes.size(); ++b)
    if (homes[b].kind == HomeKind::CopySource) values[b] = true;  // its copy stores nothing
  std::vector<BandRef> bands;
  for (const LoopBand& b : loopBands) {
    bands.push_back({{}, b.depth, {}});
    for (size_t i : b.groups) bands.back().groups.push_back(&groups[i]);
  }
  w.line("// stage " + std::to_string(stage) + (stage > 0 ? " (after a block sync: every unit of the block finished stage " +
                                                                std::to_string(stage - 1) + ")" : ""));
  w.open("for (int64_t u = u0; u < u1; ++u)");
  StageBuffers buffers{values, std::vector<bool>(values.size(), false), {}};
  std::vector<const BufferPlan*> declared;
  for (const BufferPlan& p : c.schedule.buffers) {
    const BufferHome& home = homes[p.buffer.value];
    if (!onStack(p) || p.kernel != k.index || (values[p.buffer.value] && home.kind == HomeKind::Own)) continue;
    bool used = false;
    for (NodeId id : st.nodes) used = used || touches(c.g, id, p.buffer);
    if (!used) continue;
    declared.push_back(&p);
    if (home.kind == HomeKind::Own) buffers.unitArrays[p.buffer.value] = true;
  }
  buffers.phaseOnly = phaseOnlyArrays(c, groups, homes, buffers.unitArrays);
  assignRowPrefetch(c, bands, buffers);
  for (const BufferPlan* p : declared) {
    const BufferHome& home = homes[p->buffer.value];
    if (home.kind != HomeKind::Own) w.line(homePointer(c, p->buffer, home));
    else if (buffers.phaseOnly[p->buffer.value])
      w.line(phasesDeclaration(c, p->buffer, bufferComment(c.g, *p) + ", kept as its even and odd elements (docs/cpu.md, \"Stride-2 reads\")"));
    else w.line("alignas(64) float " + c.names[p->buffer.value] + "[" + std::to_string(p->instanceSize) + "];  // " + bufferComment(c.g, *p));
  }
  StageEmitter emit{w, c, buffers, homes, status};
  std::vector<std::optional<UnitDomain>> domains;
  for (const BandRef& b : bands)
    domains.push_back(guarded(c, *b.groups.front()) ? std::optional(domainOf(c, *b.groups.front())) : std::nullopt);
  for (size_t i = 0; i < bands.size();) {
    size_t end = disjointRunEnd(domains, i);
    if (end - i < kDispatchAtLeast) {
      emit.band(bands[i++]);
      continue;
    }
    std::vector<const BandRef*> run;
    for (size_t k : byDomainStart(domains, i, end)) run.push_back(&bands[k]);
    w.line("// " + std::to_string(run.size()) + " groups on disjoint unit domains: a binary search on u");
    emit.dispatch(run, 0, run.size());
    i = end;
  }
  w.close();
}

bool kernelStreams(const EmitContext& c, const KernelSchedule& k) {
  const Graph& g = c.g;
  for (const Stage& st : k.stages)
    for (NodeId id : st.nodes)
      for (SliceId sl : g.node(id).outputs)
        if (c.streamed[g.slice(sl).buffer.value]) return true;
  return false;
}

// Whether a node of the kernel calls a transcendental (exp, erf, tanh, ...): such a kernel is compiled
// with 512-bit vectors preferred. Measured on this project's machine (docs/cpu.md, "Vector width"), it made
// the softmaxes 1.5x and GELU 1.2x faster, and made LayerNorm and the column sums 6-22 % slower.
bool kernelComputesTranscendentals(const EmitContext& c, const KernelSchedule& k) {
  for (const Stage& st : k.stages)
    for (NodeId id : st.nodes)
      if (callsTranscendental(c.g.node(id))) return true;
  return false;
}

void emitKernel(CodeWriter& w, const EmitContext& c, const KernelSchedule& k, Status& status) {
  const Schedule& s = c.schedule;
  bool wide = kernelComputesTranscendentals(c, k);
  if (wide) w.raw(wideVectorsBegin());
  w.line("// kernel " + std::to_string(k.index) + ": " + std::to_string(k.stages.size()) + " stage(s), " + std::to_string(k.blockSyncs) +
         " block sync(s); runs inside a parallel region, ends with the barrier of its omp for");
  w.open("void kernel" + std::to_string(k.index) + "(float* const* g)");
  int arg = 0;
  for (const BufferPlan& p : s.buffers) {
    if (!isArgument(c.g, p)) continue;
    if (kernelTouches(c.g, k, p.buffer))
      w.line("float* const " + c.names[p.buffer.value] + " = g[" + std::to_string(arg) + "];  // " + bufferComment(c.g, p));
    ++arg;
  }
  int64_t scratch = 0;
  std::vector<std::pair<std::string, int64_t>> carved;
  for (const BufferPlan& p : s.buffers) {
    if (p.kernel != k.index || p.placement == Placement::Global || onStack(p)) continue;
    int64_t size = p.placement == Placement::PerBlockUnits ? p.instanceSize * s.unitsPerBlock : p.instanceSize;
    carved.push_back({"float* const " + c.names[p.buffer.value] + " = scratch + " + std::to_string(scratch) + ";  // " + bufferComment(c.g, p), size});
    scratch += (size + 15) / 16 * 16;  // 64-byte aligned pieces
  }
  if (scratch > 0) {
    w.line("float* const scratch = girScratch(" + std::to_string(scratch) + ");  // this thread's block scratch");
    for (const auto& [text, size] : carved) w.line(text);
  }
  BlockOrder order = blockOrder(c.g, s, k);
  if (order.indexOrder()) {
    if (order.count < s.blocks) w.line("// only blocks " + std::to_string(order.first) + " to " + std::to_string(order.first + order.count - 1) +
                                       " run this kernel's nodes: the static schedule shares them out (docs/cpu.md, \"Block order\")");
    w.line("#pragma omp for schedule(static)");
    w.open("for (int64_t blk = " + std::to_string(order.first) + "; blk < " + std::to_string(order.first + order.count) + "; ++blk)");
  } else {
    w.line("// blocks visited " + std::to_string(order.steps) + " steps of the slowest unit dim at a time (docs/cpu.md, \"Block order\")");
    w.line("#pragma omp for schedule(static)");
    w.open("for (int64_t visit = 0; visit < " + std::to_string(s.blocks) + "; ++visit)");
    w.line("const int64_t blk = " + visitedBlockExpr(order, "visit") + ";");
  }
  w.line("const int64_t u0 = blk * " + std::to_string(s.unitsPerBlock) + ", u1 = std::min<int64_t>(u0 + " +
         std::to_string(s.unitsPerBlock) + ", " + std::to_string(s.units) + ");");
  emitPrefetch(w, c, order, prefetchedReads(c, k));
  for (size_t st = 0; st < k.stages.size(); ++st)
    if (!k.stages[st].nodes.empty()) emitStage(w, c, k, st, status);
  if (kernelStreams(c, k)) w.line("girStreamFence();  // streaming stores are weakly ordered: drain them before the barrier");
  w.close();
  w.close();
  if (wide) w.raw(wideVectorsEnd());
}

void emitEntryPoints(CodeWriter& w, const CpuSource& src) {
  w.line("extern \"C\" {");
  w.line("const char* gir_signature() { return \"" + src.signature + "\"; }");
  w.line("void gir_set_threads(int n) { omp_set_num_threads(n); }");
  w.line("#ifdef GIR_INSTRUMENT");
  w.line("long long gir_counted_bytes() { return girBytesTotal; }");
  w.line("void gir_reset_counted_bytes() { girBytesTotal = 0; }");
  w.line("#define GIR_FLUSH_COUNT() do { _Pragma(\"omp atomic\") girBytesTotal += girBytes; girBytes = 0; } while (0)");
  w.line("#else");
  w.line("long long gir_counted_bytes() { return -1; }");
  w.line("void gir_reset_counted_bytes() {}");
  w.line("#define GIR_FLUSH_COUNT() do {} while (0)");
  w.line("#endif");
  w.open("int gir_run(float* const* g)");
  w.line("#pragma omp parallel");
  w.open("");
  for (int k = 0; k < src.kernels; ++k) w.line("kernel" + std::to_string(k) + "(g);");
  w.line("GIR_FLUSH_COUNT();");
  w.close();
  w.line("return 0;");
  w.close();
  w.open("int gir_run_kernel(int k, float* const* g)");
  w.line("if (k < 0 || k >= " + std::to_string(src.kernels) + ") return 1;");
  w.line("#pragma omp parallel");
  w.open("");
  w.open("switch (k)");
  for (int k = 0; k < src.kernels; ++k) w.line("case " + std::to_string(k) + ": kernel" + std::to_string(k) + "(g); break;");
  w.close();
  w.line("GIR_FLUSH_COUNT();");
  w.close();
  w.line("return 0;");
  w.close();
  w.line("}  // extern \"C\"");
}

// The graph with strided short runs coalesced (docs/cpu.md, "Coalesced units"), when one applies and
// the result verifies and has no race, conflict or uninitialized read under the symbolic checker. Its
// unit-scope buffers may outgrow the level's declared capacity: that capacity budgets the plan, which
// was checked before; here the emitter places each instance by its size (stack or thread scratch).
std::optional<Graph> coalescedForRuns(const Graph& g, int64_t runBytes) {
  if (runBytes <= 0) return std::nullopt;
  auto c = coalesceStridedRuns(g, runBytes, kMinCoalescedUnits);
  if (!c || !verifyGraph(*c)) return std::nullopt;
  auto report = checkMemoryModelSymbolic(*c);
  if (!report || report->firstBeyondCapacity()) return std::nullopt;
  return std::move(*c);
}

}  // namespace

Expected<CpuSource> emitCpu(const Graph& original, const CpuEmitOptions& options) {
  std::optional<Graph> coalesced = coalescedForRuns(original, options.coalesceRunsBelowBytes);
  const Graph& g = coalesced ? *coalesced : original;
  auto schedule = buildSchedule(g);
  if (!schedule) return schedule.takeError();
  CpuSource src;
  src.schedule = std::move(*schedule);
  src.kernels = static_cast<int>(src.schedule.kernels.size());
  EmitContext c{g, src.schedule, bufferNames(g), options.instrument, streamedBuffers(g, src.schedule, options.streamAboveCacheBytes),
                nonPositiveSlices(g), options.rowSumSegments};
  for (const BufferPlan& p : src.schedule.buffers) {
    if (!isArgument(g, p)) continue;
    const Buffer& b = g.buffer(p.buffer);
    src.args.push_back({b.name, p.buffer, b.numel(), b.role});
    src.signature += (src.signature.empty() ? "" : ";") + c.names[p.buffer.value] + ":" + std::to_string(b.numel()) + ":" + roleText(b.role);
  }
  CodeWriter w;
  w.line("// Generated by GIR Workbench (codegen/cpu) from GIR graph @" + g.name + ": " + std::to_string(g.units) + " units, " +
         std::to_string(g.unitsPerBlock) + " per block, " + std::to_string(src.kernels) + " kernel(s).");
  if (coalesced)
    w.line("// Units coalesced " + std::to_string(original.units / g.units) + " to 1 along the innermost dim, from " + std::to_string(original.units) +
           " units: strided runs under " + std::to_string(options.coalesceRunsBelowBytes) + " bytes (docs/cpu.md, \"Coalesced units\").");
  w.line("// A block's units run in turn on one thread; device syncs end a parallel loop; block syncs end a stage.");
  if (options.instrument) w.line("#define GIR_INSTRUMENT 1");
  src.code = w.text() + std::string(cpuPrelude());
  CodeWriter body;
  body.blank();
  body.line("namespace {");
  body.blank();
  Status status = success();
  for (const KernelSchedule& k : src.schedule.kernels) {
    emitKernel(body, c, k, status);
    body.blank();
  }
  body.line("}  // namespace");
  body.blank();
  emitEntryPoints(body, src);
  if (!status) return status.takeError();
  src.code += body.text();
  return src;
}

}  // namespace gir::codegen::cpu
